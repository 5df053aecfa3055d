// Writing, building, running and checking a case's generated C++ (see codegen_check.h).
#include "runner/pipeline/codegen_check.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backend/simulated_backend.h"
#include "core/error.h"
#include "core/rng.h"
#include "core/safetensors.h"
#include "runner/pipeline/shell_command.h"

namespace meshtest::runner {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPackageConfig = "lib/cmake/meshtest/meshtest-config.cmake";

bool holds_package(const fs::path& prefix) { return !prefix.empty() && fs::exists(prefix / kPackageConfig); }

// The installed libraries generated programs link (a reinstall changes the build key).
std::string sdk_stamp(const std::string& prefix) {
  uint64_t h = hash_seed(prefix);
  for (const char* lib : {"lib/libmeshtest_core.so", "lib/libmeshtest_device.so"}) {
    std::error_code ec;
    const fs::path p = fs::path(prefix) / lib;
    const auto size = fs::file_size(p, ec);
    const auto time = fs::last_write_time(p, ec).time_since_epoch().count();
    h = hash_seed(std::to_string(size) + ":" + std::to_string(time), h);
  }
  return std::to_string(h % 1000000007ull);
}

// Holds an exclusive flock on `path` (created) for its lifetime.
class FileLock {
 public:
  explicit FileLock(const fs::path& path) : fd_(::open(path.c_str(), O_CREAT | O_RDWR, 0644)) {
    if (fd_ < 0) throw Error(path.string() + ": cannot open: " + std::strerror(errno));
    ::flock(fd_, LOCK_EX);
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

std::string tail(const std::string& text, size_t max_chars = 2000) {
  return text.size() <= max_chars ? text : "..." + text.substr(text.size() - max_chars);
}

// The first element where `generated` and `device` differ, or "" when bit-identical.
std::string first_difference(const std::string& name, const Tensor& generated, const Tensor& device) {
  if (generated.dtype() != device.dtype() || generated.shape() != device.shape()) {
    return "output '" + name + "' is " + type_to_string({generated.dtype(), generated.shape()}) +
           ", the device's is " + type_to_string({device.dtype(), device.shape()});
  }
  if (std::memcmp(generated.raw_data(), device.raw_data(), device.nbytes()) == 0) return "";
  const size_t width = device.nbytes() / static_cast<size_t>(std::max<int64_t>(device.numel(), 1));
  const auto* a = static_cast<const unsigned char*>(generated.raw_data());
  const auto* b = static_cast<const unsigned char*>(device.raw_data());
  int64_t i = 0;
  while (i < device.numel() && std::memcmp(a + i * width, b + i * width, width) == 0) ++i;
  return "output '" + name + "' differs from the device at element " + std::to_string(i) + ": " +
         std::to_string(generated.element_as_double(i)) + " vs " + std::to_string(device.element_as_double(i));
}

std::string compare_exact(const codegen::GeneratedProgram& program, const std::map<std::string, Tensor>& generated,
                          const std::vector<Tensor>& device) {
  for (size_t i = 0; i < program.outputs.size(); ++i) {
    const auto it = generated.find(program.outputs[i]);
    if (it == generated.end()) return "the generated program wrote no output '" + program.outputs[i] + "'";
    if (std::string diff = first_difference(program.outputs[i], it->second, device[i]); !diff.empty()) return diff;
  }
  return "";
}

std::string compare_pcc(const codegen::GeneratedProgram& program, const std::map<std::string, Tensor>& generated,
                        const std::vector<Tensor>& device, const comparators::ComparisonConfig& comparison) {
  std::vector<Tensor> ours;
  for (const std::string& name : program.outputs) {
    const auto it = generated.find(name);
    if (it == generated.end()) return "the generated program wrote no output '" + name + "'";
    ours.push_back(it->second);
  }
  const comparators::Verdict v = comparators::compare_outputs(program.outputs, ours, device, comparison);
  return v.passed ? "" : v.message;
}

// Folder for one run's tensors, unique within this process.
fs::path run_folder() {
  static std::atomic<int> counter{0};
  return fs::temp_directory_path() /
         ("meshtest-emitc-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
}

}  // namespace

std::string find_sdk_prefix(const CodegenSettings& settings) {
  if (!settings.sdk_prefix.empty()) {
    if (!holds_package(settings.sdk_prefix))
      throw Error("--sdk-prefix " + settings.sdk_prefix + " holds no meshtest package (" + kPackageConfig + ")");
    return settings.sdk_prefix;
  }
  if (const char* env = std::getenv("MESHTEST_SDK_PREFIX"); env != nullptr && *env != '\0') {
    if (!holds_package(env))
      throw Error("$MESHTEST_SDK_PREFIX " + std::string(env) + " holds no meshtest package (" + kPackageConfig + ")");
    return env;
  }
  std::error_code ec;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
  for (const fs::path& candidate : {exe_dir.parent_path(), exe_dir / "sdk"}) {
    if (holds_package(candidate)) return candidate.string();
  }
  throw Error("the generated code needs the installed meshtest package: cmake --install <build> --prefix "
              "<build>/sdk (scripts/test does), or pass --sdk-prefix / $MESHTEST_SDK_PREFIX");
}

CodegenCheck check_generated_program(const codegen::GeneratedProgram& program, const std::vector<Tensor>& device,
                                     bool exact, const comparators::ComparisonConfig& comparison,
                                     const CodegenSettings& settings) {
  CodegenCheck check;
  if (device.size() != program.outputs.size()) {
    check.status = "mismatch";
    check.message = "the generated program has " + std::to_string(program.outputs.size()) + " outputs, the device " +
                    std::to_string(device.size());
    return check;
  }
  const std::string prefix = find_sdk_prefix(settings);
  const std::string cache = settings.cache_dir.empty() ? backend::default_cache_dir() : settings.cache_dir;
  if (cache.empty()) throw Error("no cache folder for generated code: set $MESHTEST_CACHE_DIR");
  const fs::path root = fs::path(cache) / "codegen";
  fs::create_directories(root);
  const fs::path dir = root / (program.hash + "-" + sdk_stamp(prefix));
  const fs::path exe = dir / "build" / codegen::kExecutableName;
  {
    FileLock lock(root / (dir.filename().string() + ".lock"));
    if (!fs::exists(dir / codegen::kSourceFile)) {
      fs::create_directories(dir);
      for (const auto& [name, text] : program.files) {
        std::ofstream(dir / name, std::ios::binary) << text;
      }
    }
    if (!fs::exists(exe)) {
      // No build type: the program is glue around the installed kernels, and
      // unoptimized it compiles ~10x faster (bert_base: 3 s of CPU, not 60).
      const std::string build = (dir / "build").string();
      const CommandResult r = run_shell(
          "cmake -S " + shell_quote(dir.string()) + " -B " + shell_quote(build) +
          " -G Ninja -DCMAKE_PREFIX_PATH=" + shell_quote(prefix) + " 2>&1 && cmake --build " +
          shell_quote(build) + " 2>&1");
      if (!r.ok) {
        check.status = "build_failed";
        check.message = "building the generated program in " + dir.string() + " failed:\n" + tail(r.output);
        return check;
      }
      check.built = true;
    }
  }
  const fs::path run = run_folder();
  fs::create_directories(run);
  write_safetensors((run / codegen::kTensorsFile).string(), program.tensors);
  const fs::path outputs = run / "outputs.safetensors";
  const CommandResult r = run_shell(shell_quote(exe.string()) + " " + shell_quote((run / codegen::kTensorsFile).string()) +
                                    " " + shell_quote(outputs.string()) + " 2>&1");
  if (!r.ok) {
    fs::remove_all(run);
    check.status = "run_failed";
    check.message = "the generated program " + exe.string() + " failed:\n" + tail(r.output);
    return check;
  }
  const std::map<std::string, Tensor> generated = read_safetensors(outputs.string());
  check.message = exact ? compare_exact(program, generated, device) : compare_pcc(program, generated, device, comparison);
  fs::remove_all(run);
  check.status = !check.message.empty() ? "mismatch" : exact ? "matched_exact" : "matched_pcc";
  if (!check.message.empty()) check.message = "generated program " + (dir / codegen::kSourceFile).string() + ": " + check.message;
  return check;
}

std::string run_codegen(backend::Backend& backend, backend::Executable& executable,
                        const std::map<std::string, Tensor>& inputs, const std::vector<Tensor>& device, bool exact,
                        const comparators::ComparisonConfig& comparison, const CodegenSettings& settings,
                        reports::CaseResult& record) {
  const auto start = std::chrono::steady_clock::now();
  codegen::GeneratedProgram program;
  try {
    program = backend.generate_program(executable, inputs, record.test_id);
  } catch (const Error& e) {
    record.codegen_status = std::string("not_generated: ") + e.what();
    return "";
  }
  std::string failure;
  if (!settings.out_dir.empty()) {
    codegen::write_program(program, settings.out_dir);
    record.codegen_status = "written";
  }
  if (settings.check) {
    const CodegenCheck check = check_generated_program(program, device, exact, comparison, settings);
    record.codegen_status = check.status;
    failure = check.message;
  }
  record.codegen_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return failure;
}

}  // namespace meshtest::runner
