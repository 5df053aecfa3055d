// StableHLO's own test programs (MESHTEST_STABLEHLO_TESTDATA: JAX-generated
// `.mlir` files whose `check.expect_*` calls hold XLA's results) through the
// reader, the importer and the CPU reference: a file passes when every check
// holds (expect_close: 3 ULP of the element type; stablehlo_checks.h). The
// outcome of every file must match tests/frontends/stablehlo_conformance.yaml
// (the files that do not pass, with the reason; dynamic/ and quantized/ files
// are run too and must fail cleanly with a reason). A regression fails, and so
// does a listed file that passes now. A sample of the files whose reference
// passes (every kDeviceSampleStride-th; all of them with
// MESHTEST_STABLEHLO_DEVICE=all) also runs on the simulated chip, compared
// with the reference by the usual comparators (comparators/metrics.h); those
// that do not pass are listed under device_failures.
// Regenerate the list: scripts/stablehlo_conformance_expectations (it sets
// MESHTEST_STABLEHLO_CONFORMANCE_OUT, where this test writes every outcome).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "comparators/metrics.h"
#include "compiler/compile.h"
#include "frontends/stablehlo/mlir_parser.h"
#include "frontends/stablehlo/stablehlo_checks.h"
#include "frontends/stablehlo/stablehlo_import.h"
#include "runtime/device/simulated_chip.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest {
namespace {

namespace fs = std::filesystem;
using namespace frontends::stablehlo;

constexpr int kDeviceSampleStride = 25;
const char* kExpectationsFile = "tests/frontends/stablehlo_conformance.yaml";

fs::path suite_root() { return fs::path(MESHTEST_STABLEHLO_TESTDATA); }

struct Outcome {
  std::string category;  // static, dynamic, quantized
  bool passed = false;
  std::string reason;
  std::set<std::string> ops;
  bool device_ran = false;
  bool device_passed = false;
  std::string device_reason;
};

std::string first_line(std::string s) {
  const size_t nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  return s;
}

// The reason without this machine's path to the file.
std::string portable(std::string why, const fs::path& file) {
  for (const std::string& prefix : {file.string() + ":", file.string()}) {
    for (size_t at = why.find(prefix); at != std::string::npos; at = why.find(prefix)) {
      why.replace(at, prefix.size(), file.filename().string() + ":");
    }
  }
  return first_line(why);
}

void collect_ops(const Region& region, std::set<std::string>& ops) {
  for (const Block& b : region.blocks) {
    for (const frontends::stablehlo::Op& op : b.ops) {
      const bool plumbing = op.name.rfind("func.", 0) == 0 || op.name == "stablehlo.constant" ||
                            op.name == "stablehlo.custom_call" || op.name == "stablehlo.return";
      if (!plumbing) ops.insert(op.name);
      for (const Region& r : op.regions) collect_ops(r, ops);
    }
  }
}

// The device against the reference, as a case compares them.
void run_device(const Graph& graph, const std::vector<Tensor>& golden, Outcome& o) {
  o.device_ran = true;
  try {
    const DeviceProgram program = compiler::compile(graph, {});
    runtime::SimulatedChip chip(runtime::ChipSpec{});
    const std::vector<Tensor> device = chip.execute(program, {});
    std::vector<std::string> names;
    for (const GraphOutput& out : graph.outputs) names.push_back(out.name);
    const comparators::Verdict v = comparators::compare_outputs(names, device, golden, {});
    o.device_passed = v.passed;
    o.device_reason = first_line(v.message);
  } catch (const std::exception& e) {
    o.device_reason = first_line(e.what());
  }
}

// One module of a file: imported, run on the reference, its checks
// evaluated; the reference outputs when every check holds, else throws or
// sets the reason.
std::optional<std::vector<Tensor>> run_module(const Module& module, const fs::path& file, Outcome& o, Graph& graph) {
  const StablehloImport program = import_stablehlo(module, file.string());
  if (program.checks.empty()) {
    o.reason = "the program makes no check";
    return std::nullopt;
  }
  const std::map<std::string, Tensor> by_name = run_reference_in_program_types(program.graph, {});
  for (const CheckOutcome& c : evaluate_checks(program.checks, by_name)) {
    if (!c.passed) {
      o.reason = "check failed: " + c.message;
      return std::nullopt;
    }
  }
  graph = program.graph;
  std::vector<Tensor> golden;
  for (const GraphOutput& out : graph.outputs) golden.push_back(by_name.at(out.name));
  return golden;
}

// A file (one module, or several split at `// -----` lines) passes when
// every module does.
Outcome run_file(const fs::path& file, const std::string& category, bool on_device) {
  Outcome o;
  o.category = category;
  try {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    const std::vector<Module> modules = parse_mlir_split(text.str(), file.string());
    for (const Module& m : modules) {
      for (const Function& f : m.functions) collect_ops(f.body, o.ops);
    }
    std::vector<std::pair<Graph, std::vector<Tensor>>> runs;
    for (const Module& m : modules) {
      Graph graph;
      std::optional<std::vector<Tensor>> golden = run_module(m, file, o, graph);
      if (!golden) return o;
      runs.emplace_back(std::move(graph), std::move(*golden));
    }
    o.passed = true;
    for (const auto& [graph, golden] : runs) {
      if (on_device && (!o.device_ran || o.device_passed)) run_device(graph, golden, o);
    }
  } catch (const std::exception& e) {
    o.reason = portable(e.what(), file);
  }
  return o;
}

std::string yaml_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += (c == '\n' ? ' ' : c);
  }
  return q + "\"";
}

void write_outcome(std::ofstream& out, const std::string& id, const Outcome& o) {
  std::string ops;
  for (const std::string& op : o.ops) ops += (ops.empty() ? "" : ", ") + op;
  out << id << ":\n  category: " << o.category << "\n  passed: " << (o.passed ? "true" : "false") << "\n  ops: ["
      << ops << "]\n";
  if (!o.passed) out << "  reason: " << yaml_quote(o.reason) << "\n";
  if (o.device_ran) {
    out << "  device_passed: " << (o.device_passed ? "true" : "false") << "\n";
    if (!o.device_passed) out << "  device_reason: " << yaml_quote(o.device_reason) << "\n";
  }
}

TEST(StablehloConformance, EveryTestProgramMatchesItsExpectation) {
  const fs::path root = suite_root();
  if (!fs::is_directory(root)) GTEST_SKIP() << "no StableHLO test data at " << root.string();
  const YAML::Node expected = YAML::LoadFile(std::string(MESHTEST_SOURCE_DIR) + "/" + kExpectationsFile);
  const char* device_env = std::getenv("MESHTEST_STABLEHLO_DEVICE");
  const bool device_all = device_env != nullptr && std::string(device_env) == "all";
  std::vector<std::pair<std::string, fs::path>> files;  // category, path
  for (const auto& [category, folder] :
       std::vector<std::pair<std::string, fs::path>>{{"static", root}, {"dynamic", root / "dynamic"},
                                                     {"quantized", root / "quantized"}}) {
    if (!fs::is_directory(folder)) continue;
    for (const auto& e : fs::directory_iterator(folder)) {
      if (e.path().extension() == ".mlir") files.emplace_back(category, e.path());
    }
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  std::ofstream results;
  if (const char* out = std::getenv("MESHTEST_STABLEHLO_CONFORMANCE_OUT")) results.open(out);
  std::map<std::string, std::pair<int, int>> per_category;  // passed, files
  std::map<std::string, std::pair<int, int>> per_op;        // static files with the op: passed, all
  int regressions = 0;
  int reference_passes = 0;
  std::pair<int, int> device_counts;  // passed, ran
  const std::string fix = " (scripts/stablehlo_conformance_expectations regenerates the list)";
  for (const auto& [category, path] : files) {
    const std::string id = fs::relative(path, root).string();
    const bool sample = device_all || (category == "static" && reference_passes % kDeviceSampleStride == 0);
    const Outcome o = run_file(path, category, sample);
    if (o.passed) ++reference_passes;
    per_category[category].first += o.passed;
    per_category[category].second += 1;
    if (category == "static") {
      for (const std::string& op : o.ops) {
        per_op[op].first += o.passed;
        per_op[op].second += 1;
      }
    }
    if (results.is_open()) write_outcome(results, id, o);
    const bool listed = static_cast<bool>(expected["expected_failures"][id]);
    if (o.passed && listed) {
      ++regressions;
      ADD_FAILURE() << id << " passes now: remove it from " << kExpectationsFile << fix;
    } else if (!o.passed && !listed) {
      ++regressions;
      ADD_FAILURE() << id << " fails: " << o.reason << fix;
    }
    if (o.device_ran) {
      device_counts.first += o.device_passed;
      device_counts.second += 1;
      const bool device_listed = static_cast<bool>(expected["device_failures"][id]);
      if (o.device_passed && device_listed) {
        ++regressions;
        ADD_FAILURE() << id << " passes on the device now: remove it from device_failures" << fix;
      } else if (!o.device_passed && !device_listed) {
        ++regressions;
        ADD_FAILURE() << id << " fails on the device: " << o.device_reason << fix;
      }
    }
  }
  for (const auto& [category, c] : per_category) {
    std::cout << category << ": " << c.first << "/" << c.second << " pass on the reference\n";
  }
  std::cout << "device: " << device_counts.first << "/" << device_counts.second << " sampled files pass\n";
  std::cout << "per op (static files containing it, passed/all):";
  for (const auto& [op, c] : per_op) std::cout << " " << op << " " << c.first << "/" << c.second << ";";
  std::cout << "\n";
  EXPECT_EQ(regressions, 0);
}

}  // namespace
}  // namespace meshtest
