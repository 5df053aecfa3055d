// Compile phase: options, backend compile, --serialize dumps, FileCheck.
#include "runner/pipeline/compile_phase.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "backend/simulated_backend.h"
#include "core/error.h"
#include "core/ir_text.h"
#include "runner/pipeline/backends.h"
#include "runner/pipeline/shell_command.h"
#include "runner/pipeline/stablehlo_stage.h"

namespace meshtest::runner {

namespace fs = std::filesystem;

namespace {

// Every stage's text, in order; written to disk as it comes when a folder is
// set (--serialize), else kept in memory until a FileCheck failure asks for
// them on disk (write_to).
class DumpSink {
 public:
  explicit DumpSink(std::string dir) : dir_(std::move(dir)) {
    if (!dir_.empty()) fs::create_directories(dir_);
  }
  void add(const std::string& stage, const std::string& text) {
    char prefix[8];
    std::snprintf(prefix, sizeof prefix, "%02zu-", stages_.size());
    const std::string name = prefix + stage + ".mtir";
    all_ += "// ----- stage: " + name + " -----\n" + text;
    stages_.emplace_back(name, text);
    if (!dir_.empty()) std::ofstream(fs::path(dir_) / name) << text;
  }
  void note(const std::string& file, const std::string& text) const {
    if (!dir_.empty()) std::ofstream(fs::path(dir_) / file) << text;
  }
  const std::string& all() const { return all_; }
  const std::string& dir() const { return dir_; }
  // The dumps, now, into `dir` (when they were not written as they came).
  void write_to(const std::string& dir) {
    if (dir == dir_) return;
    dir_ = dir;
    fs::create_directories(dir_);
    for (const auto& [name, text] : stages_) std::ofstream(fs::path(dir_) / name) << text;
  }

 private:
  std::string dir_;
  std::string all_;
  std::vector<std::pair<std::string, std::string>> stages_;
};

std::string filecheck_binary() {
  if (const char* env = std::getenv("MESHTEST_FILECHECK"); env != nullptr && *env != '\0') return env;
  if (fs::exists("/usr/lib/llvm-14/bin/FileCheck")) return "/usr/lib/llvm-14/bin/FileCheck";
  return "FileCheck";
}

// FileCheck's first "error:" line and the check line under it, on one line:
// "p.txt:2:11: error: CHECK: expected string not found in input: // CHECK: zzz".
std::string first_filecheck_error(const std::string& output) {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.find("error:") == std::string::npos) continue;
    std::string check;
    std::getline(in, check);
    return line + (check.empty() ? "" : ": " + check);
  }
  return output.substr(0, output.find('\n'));
}

// Runs FileCheck `pattern` on `sink`'s dumps. On a mismatch the dumps, the
// concatenated input and FileCheck's whole output are kept in the case folder
// (--serialize's, else one under the temp dir) and a CompileError says the
// first error and where they are.
void run_filecheck(const std::string& pattern, DumpSink& sink, const std::string& fallback_dir) {
  const fs::path tmp = fs::temp_directory_path() / ("meshtest-filecheck-" + std::to_string(::getpid()) + ".mtir");
  std::ofstream(tmp) << sink.all();
  const std::string command = shell_quote(filecheck_binary()) + " " + shell_quote(pattern) +
                              " --input-file=" + shell_quote(tmp.string()) + " 2>&1";
  const CommandResult result = run_shell(command);
  fs::remove(tmp);
  if (result.ok) return;
  sink.write_to(sink.dir().empty() ? fallback_dir : sink.dir());
  const fs::path kept_input = fs::path(sink.dir()) / "filecheck-input.mtir";
  const fs::path kept_output = fs::path(sink.dir()) / ("filecheck-" + fs::path(pattern).stem().string() + ".txt");
  std::ofstream(kept_input) << sink.all();
  std::string replaced = result.output;  // FileCheck names the temp file: name the kept one instead
  for (size_t at = replaced.find(tmp.string()); at != std::string::npos; at = replaced.find(tmp.string(), at)) {
    replaced.replace(at, tmp.string().size(), kept_input.string());
    at += kept_input.string().size();
  }
  std::ofstream(kept_output) << replaced;
  throw CompileError("FileCheck " + fs::path(pattern).filename().string() + " failed: " +
                     first_filecheck_error(replaced) + " (input " + kept_input.string() + ", full output " +
                     kept_output.string() + ")");
}

// A filechecks entry relative to the YAML file that lists it (else as given).
std::string resolve_pattern(const std::string& file, const config::TestEntry& entry) {
  if (fs::path(file).is_absolute() || entry.defined_at.file.empty()) return file;
  const fs::path beside = fs::path(entry.defined_at.file).parent_path() / file;
  return fs::exists(beside) ? beside.string() : file;
}

std::string format_stats(const std::map<std::string, int64_t>& stats) {
  std::string s;
  for (const auto& [name, value] : stats) s += (s.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return s;
}

// The batch of a case: the leading dim of the graph's first input (1 for a
// scalar or no input).
int64_t batch_of(const Graph& graph) {
  for (const Param& p : graph.params) {
    if (p.kind != ParamKind::Input) continue;
    const Shape& shape = graph.type(p.value).shape;
    return shape.empty() ? 1 : shape.front();
  }
  return 1;
}

// The target's backend, with the compile cache when `cache`.
std::unique_ptr<backend::Backend> backend_for(const CompileSettings& settings, const CompileTarget& target, bool cache) {
  const std::string cache_dir =
      cache ? (settings.cache_dir.empty() ? backend::default_cache_dir() : settings.cache_dir) : "";
  return available_backends().create(target.backend,
                                     {target.chip, target.chips, cache_dir, target.pjrt_plugin, target.pjrt_options});
}

}  // namespace

CompiledCase compile_graph(const Graph& graph, const CompileSettings& settings, const CompileTarget& target) {
  backend::CompileRequest request;
  request.settings = target.device;
  request.sharding = target.sharding;
  CompiledCase out;
  out.backend = backend_for(settings, target, settings.use_cache);
  out.executable = out.backend->compile(graph, request);
  return out;
}

backend::DeviceSettings resolve_device_settings(const CompileSettings& settings, const config::TestEntry& entry) {
  backend::DeviceSettings o;  // its defaults apply where neither says
  if (const std::optional<int> level = settings.optimization_level ? settings.optimization_level
                                                                   : entry.optimization_level) {
    o.optimization_level = *level;
  }
  if (const std::optional<bool> bfp8 = settings.weight_bfp8 ? settings.weight_bfp8
                                                            : entry.enable_weight_bfp8_conversion) {
    o.weight_dtype = *bfp8 ? DType::BFP8_B : DType::BF16;
  }
  if (const std::optional<std::string> fidelity = settings.math_fidelity ? settings.math_fidelity
                                                                         : entry.math_fidelity) {
    o.math_fidelity = backend::canonical_math_fidelity(*fidelity);
  }
  o.enable_fusion = settings.enable_fusion;
  o.enable_composite_ops = settings.enable_composite_ops;
  return o;
}

std::string sanitize_test_id(const std::string& id) {
  std::string out = id;
  for (char& c : out) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return out.empty() || out == "." || out == ".." ? "_" + out : out;
}

CompiledCase compile_case(const std::string& test_id, const config::TestEntry& entry, const Graph& graph,
                          const CompileSettings& settings, const CompileTarget& target, reports::CaseResult& record) {
  const runtime::ChipSpec& chip = target.chip;
  const bool dumping = !settings.serialize_dir.empty() || !entry.filechecks.empty();
  DumpSink sink(
      settings.serialize_dir.empty() ? "" : (fs::path(settings.serialize_dir) / sanitize_test_id(test_id)).string());
  backend::CompileRequest request;
  request.settings = target.device;
  request.sharding = target.sharding;
  request.enable_trace = target.enable_trace;
  request.stream_weights = target.stream_weights;
  if (!settings.stablehlo_export_dir.empty()) export_stablehlo(test_id, graph, target.sharding.get(), settings);
  if (!sink.dir().empty()) dump_stablehlo_stage(graph, target.sharding.get(), sink.dir());
  if (dumping) {
    sink.add("frontend", print_graph(graph));
    request.dump = [&sink](std::string_view stage, const std::string& text) { sink.add(std::string(stage), text); };
  }
  // Dumps are wanted exactly when the passes must run, so the cache is bypassed then.
  CompiledCase out;
  out.backend = backend_for(settings, target, settings.use_cache && !dumping);
  try {
    out.executable = out.backend->compile(graph, request);
  } catch (const std::exception& e) {
    sink.note("error.txt", std::string(e.what()) + "\n");
    throw;
  }
  const backend::CompileInfo& info = out.executable->info();
  record.compile_cache_hit = info.cache_hit;
  record.compile_stats = format_stats(info.stats);
  record.peak_device_dram_bytes = info.planned_peak_dram_bytes;
  const int64_t cores = int64_t{chip.core_rows} * chip.core_cols;
  record.peak_device_l1_bytes = cores > 0 ? info.planned_peak_l1_bytes / cores : 0;
  record.device_ops = info.device_ops;
  record.kernel_variants.clear();
  for (const auto& [item, instructions] : info.kernel_variants) record.kernel_variants.push_back(item);
  record.modelled_device_seconds = info.cost.seconds;
  record.modelled_top_ops = info.cost.top_ops_text(5);
  if (info.cost.seconds > 0) record.samples_per_second = static_cast<double>(batch_of(graph)) / info.cost.seconds;
  record.mesh = info.mesh;
  record.backend = target.backend;
  record.backend_platform = info.platform;
  record.backend_device = info.device_kind + " x " + std::to_string(info.devices);
  std::string not_applied;
  for (const std::string& o : info.options_not_applied) not_applied += (not_applied.empty() ? "" : "; ") + o;
  record.backend_options_not_applied = not_applied;
  std::string fallbacks;
  for (const std::string& f : info.sharding_fallbacks) fallbacks += (fallbacks.empty() ? "" : "; ") + f;
  record.sharding_fallbacks = fallbacks;
  const std::string fallback_dir = (fs::temp_directory_path() / "meshtest-filecheck" / sanitize_test_id(test_id)).string();
  for (const std::string& file : entry.filechecks) run_filecheck(resolve_pattern(file, entry), sink, fallback_dir);
  return out;
}

void record_execution_stats(const backend::MemoryStats& stats, const runtime::ChipSpec& chip,
                            reports::CaseResult& record) {
  record.peak_device_dram_bytes = stats.peak_dram_bytes;
  const int64_t cores = int64_t{chip.core_rows} * chip.core_cols;
  record.peak_device_l1_bytes = cores > 0 ? stats.peak_l1_bytes / cores : 0;
  record.device_ops = stats.ops_executed;
  record.per_chip_peak_dram_bytes = stats.per_chip_peak_dram_bytes;
  record.collectives_executed = stats.collectives_executed;
  record.bytes_moved_between_chips = stats.bytes_moved_between_chips;
  record.device_bytes_leaked = stats.device_bytes_leaked;
}

}  // namespace meshtest::runner
