// Compile cache: keys, entry files, corruption handling.
#include "compiler/compile_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <variant>

#include "compiler/program_serialize.h"
#include "core/atomic_file.h"
#include "core/build_id.h"
#include "core/error.h"
#include "core/mutation.h"

namespace meshtest::compiler {

namespace fs = std::filesystem;

namespace {

void hash_attrs(Hasher& h, const Attrs& attrs) {
  h.word(attrs.values().size());
  for (const auto& [name, value] : attrs.values()) {
    h.str(name);
    h.word(value.index());
    if (const auto* i = std::get_if<int64_t>(&value)) h.word(static_cast<uint64_t>(*i));
    if (const auto* d = std::get_if<double>(&value)) h.word(std::bit_cast<uint64_t>(*d));
    if (const auto* t = std::get_if<std::string>(&value)) h.str(*t);
    if (const auto* v = std::get_if<std::vector<int64_t>>(&value)) h.bytes(v->data(), v->size() * sizeof(int64_t));
  }
}

void hash_param(Hasher& h, const Graph& graph, const Param& p) {
  const TensorType& type = graph.type(p.value);
  h.word(static_cast<uint64_t>(type.dtype));
  h.bytes(type.shape.data(), type.shape.size() * sizeof(int64_t));
  h.str(p.name);
  h.word(static_cast<uint64_t>(p.kind) * 0x100000000ull + static_cast<uint32_t>(p.value));
  if (p.init) {
    h.word(1);
    h.word(static_cast<uint64_t>(p.init->dist));
    h.word(std::bit_cast<uint64_t>(p.init->a));
    h.word(std::bit_cast<uint64_t>(p.init->b));
    h.word(p.init->seed);
  } else if (p.data.defined() && p.data.numel() > 0 && !p.data_source.empty()) {
    h.word(3);  // a file's data, named by file, size and time: its bytes are not read
    h.str(p.data_source);
  } else if (p.data.defined() && p.data.numel() > 0) {
    h.word(2);
    h.word(hash_bytes(std::string_view(static_cast<const char*>(p.data.raw_data()), p.data.nbytes())));
  } else {
    h.word(0);
  }
}

// Closes a file descriptor when it goes out of scope.
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
};

// A whole file in memory, read with one read() when it fits (no buffering, no
// zero-filling of the buffer first).
class FileBytes {
 public:
  // nullopt when `path` cannot be opened (no entry); throws Error when it
  // opens but cannot be read.
  static std::optional<FileBytes> read(const std::string& path);
  std::string_view view() const { return {data_.get(), size_}; }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
};

std::optional<FileBytes> FileBytes::read(const std::string& path) {
  const FdGuard guard{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  const int fd = guard.fd;
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error(std::string("cannot stat: ") + std::strerror(errno));
  FileBytes file;
  const auto capacity = static_cast<size_t>(std::max<off_t>(st.st_size, 0));
  file.data_ = std::make_unique_for_overwrite<char[]>(capacity);
  while (file.size_ < capacity) {  // a file that shrank meanwhile reads short: the checksum tells
    const ssize_t n = ::read(fd, file.data_.get() + file.size_, capacity - file.size_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    file.size_ += static_cast<size_t>(n);
  }
  return file;
}

}  // namespace

std::string compile_cache_key(const Graph& graph, const CompileOptions& options, const std::string& target) {
  check_mutant_environment();
  // Everything the IR text says (values, params with their initializers, ops
  // with attributes, outputs), hashed structurally rather than printed;
  // weights that hold data instead of an initializer are hashed by content.
  // Op result types follow from the params' types and the ops (verified), so
  // only param types are hashed. Lists are hashed with their lengths, so the
  // word stream of two different graphs cannot coincide.
  Hasher h;
  h.str(graph.name);
  h.word(graph.params.size());
  for (const Param& p : graph.params) hash_param(h, graph, p);
  h.word(graph.ops.size());
  for (const Op& op : graph.ops) {
    h.word(static_cast<uint64_t>(op.kind) * 0x100000000ull + static_cast<uint32_t>(op.output));
    h.bytes(op.inputs.data(), op.inputs.size() * sizeof(ValueId));
    hash_attrs(h, op.attrs);
  }
  h.word(graph.outputs.size());
  for (const GraphOutput& o : graph.outputs) {
    h.str(o.name);
    h.word(static_cast<uint64_t>(o.value));
  }
  h.str(options.fingerprint());
  h.str(target);
  h.str(kCompilerVersion);
  // The build that holds this compiler: a rebuilt compiler never gets a
  // program an older build compiled, whether or not kCompilerVersion moved.
  static const std::string compiler_build = build_id_of(reinterpret_cast<const void*>(&compile_cache_key));
  h.str(compiler_build);
  // A mutated compiler or device (core/mutation.h) gets keys of its own, so
  // a mutated program never serves or pollutes a normal run.
  if (active_mutant() != MutantId::None) h.str("mutant " + std::string(active_mutant_name()));
  return h.hex();
}

std::string CompileCache::default_dir() {
  if (const char* dir = std::getenv("MESHTEST_CACHE_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return (fs::path(xdg) / "meshtest").string();
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return (fs::path(home) / ".cache" / "meshtest").string();
  }
  return "";
}

std::string CompileCache::entry_path(const std::string& key) const {
  return (fs::path(dir_) / (key + ".mtprog")).string();
}

std::optional<CompileResult> CompileCache::load(const std::string& key, std::string& warning) const {
  warning.clear();
  if (!enabled()) return std::nullopt;
  const std::string path = entry_path(key);
  try {
    const std::optional<FileBytes> bytes = FileBytes::read(path);
    if (!bytes) return std::nullopt;
    SerializedProgram entry = deserialize_program(bytes->view());
    if (entry.key != key) throw ParseError("entry belongs to key " + entry.key);
    return CompileResult{std::move(entry.program), std::move(entry.stats), {}};
  } catch (const Error& e) {
    warning = "compile cache: ignoring entry " + path + " (" + e.what() + "); recompiling";
    return std::nullopt;
  }
}

std::string CompileCache::store(const std::string& key, const CompileResult& result) const {
  if (!enabled()) return "";
  std::error_code ec;
  fs::create_directories(dir_, ec);
  const std::string path = entry_path(key);
  try {
    write_file_atomically(path, serialize_program({key, result.program, result.stats}), "the compile cache entry");
  } catch (const Error& e) {
    return std::string("compile cache: not stored: ") + e.what();
  }
  return "";
}

}  // namespace meshtest::compiler
