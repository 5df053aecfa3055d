// Compile cache: keys, entry files, corruption handling.
#include "compiler/compile_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <variant>

#include "compiler/program_serialize.h"
#include "core/error.h"

namespace meshtest::compiler {

namespace fs = std::filesystem;

namespace {

void hash_attrs(Hasher& h, const Attrs& attrs) {
  h.word(attrs.values().size());
  for (const auto& [name, value] : attrs.values()) {
    h.str(name);
    h.word(value.index());
    if (const auto* i = std::get_if<int64_t>(&value)) h.word(static_cast<uint64_t>(*i));
    if (const auto* d = std::get_if<double>(&value)) h.bytes(d, sizeof *d);
    if (const auto* t = std::get_if<std::string>(&value)) h.str(*t);
    if (const auto* v = std::get_if<std::vector<int64_t>>(&value)) h.bytes(v->data(), v->size() * sizeof(int64_t));
  }
}

}  // namespace

std::string compile_cache_key(const Graph& graph, const CompileOptions& options, const std::string& target) {
  // Everything the IR text says (values, params with their initializers, ops
  // with attributes, outputs), hashed structurally rather than printed;
  // weights that hold data instead of an initializer are hashed by content.
  // Op result types follow from the params' types and the ops (verified), so
  // only param types are hashed.
  Hasher h;
  h.str(graph.name);
  for (const Param& p : graph.params) {
    const TensorType& type = graph.type(p.value);
    h.word(static_cast<uint64_t>(type.dtype));
    h.bytes(type.shape.data(), type.shape.size() * sizeof(int64_t));
    h.str(p.name);
    h.word(static_cast<uint64_t>(p.kind) * 0x100000000ull + static_cast<uint64_t>(p.value));
    if (p.init) {
      h.word(static_cast<uint64_t>(p.init->dist));
      h.bytes(&p.init->a, sizeof p.init->a);
      h.bytes(&p.init->b, sizeof p.init->b);
      h.word(p.init->seed);
    } else if (p.data.defined() && p.data.numel() > 0) {
      h.word(hash_bytes(std::string_view(static_cast<const char*>(p.data.raw_data()), p.data.nbytes())));
    }
  }
  for (const Op& op : graph.ops) {
    h.word(static_cast<uint64_t>(op.kind) * 0x100000000ull + static_cast<uint64_t>(op.output));
    h.bytes(op.inputs.data(), op.inputs.size() * sizeof(ValueId));
    hash_attrs(h, op.attrs);
  }
  for (const GraphOutput& o : graph.outputs) {
    h.str(o.name);
    h.word(static_cast<uint64_t>(o.value));
  }
  h.str(options.fingerprint());
  h.str(target);
  h.str(kCompilerVersion);
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
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  std::string bytes(static_cast<size_t>(std::max<std::streamoff>(0, in.tellg())), '\0');
  in.seekg(0);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  try {
    SerializedProgram entry = deserialize_program(bytes);
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
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << serialize_program({key, result.program, result.stats});
    if (!out) return "compile cache: cannot write " + tmp;
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return "compile cache: cannot store " + path;
  }
  return "";
}

}  // namespace meshtest::compiler
