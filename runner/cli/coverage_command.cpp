// `meshtest coverage`: the selection compiled (or earlier results read) and
// its device-path coverage printed and gated (see coverage_command.h).
#include "runner/cli/coverage_command.h"

#include <fstream>
#include <iostream>

#include "reports/result_json.h"
#include "runner/pipeline/case_pipeline.h"
#include "runtime/arch/arch_profile.h"

namespace meshtest::runner {

namespace {

// Every record of the JSON lines files (lines that are not records, e.g. a
// run line, are skipped); false (said on stderr) when a file cannot be read.
bool read_results(const std::vector<std::string>& files, std::vector<reports::CaseResult>& out) {
  for (const std::string& file : files) {
    std::ifstream in(file);
    if (!in) {
      std::cerr << "error: cannot read results file '" << file << "'\n";
      return false;
    }
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      const nlohmann::json json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (json.is_object() && json.contains("test_id")) out.push_back(reports::result_from_json(json));
    }
  }
  return true;
}

// The selected cases, each compiled (not executed) in this process.
std::vector<reports::CaseResult> compile_selection(const Collected& collected, const CommonOptions& common,
                                                   const CompileSettings& settings) {
  PipelineOptions options;
  options.arch = runtime::arch_profile(common.arch);
  options.chip = options.arch.chip;
  options.compile = settings;
  options.compile.compile_only = true;
  std::vector<reports::CaseResult> out;
  for (const TestCase* c : collected.selection.selected) out.push_back(run_case(*c, options));
  return out;
}

}  // namespace

int cmd_coverage(const CommonOptions& common, const CoverageOptions& options) {
  if (options.require != "all" && options.require != "single-chip") {
    std::cerr << "error: --require takes all or single-chip, not '" << options.require << "'\n";
    return 2;
  }
  const SelectionOptions& selection = common.selection;
  if (!options.results.empty() && (!selection.ids.empty() || !selection.keyword.empty() || !selection.marker.empty())) {
    std::cerr << "error: --results reads earlier results, a selection would compile cases: give one or the other\n";
    return 2;
  }
  std::vector<reports::CaseResult> results;
  if (!options.results.empty()) {
    if (!read_results(options.results, results)) return 2;
  } else {
    const std::unique_ptr<Collected> collected = collect_cases(common, &std::cerr);
    if (!collected) return 2;
    if (collected->selection.selected.empty()) {
      std::cerr << "error: no test case matches the selection on " << common.arch << ": nothing to measure\n";
      return 5;
    }
    results = compile_selection(*collected, common, options.compile);
  }
  const DeviceCoverage coverage = measure_coverage(results);
  print_coverage(std::cout, coverage, {options.verbosity >= 1});
  const CoverageScope scope = options.require == "all" ? CoverageScope::All : CoverageScope::SingleChip;
  const std::vector<std::string> problems = coverage_problems(coverage, scope);
  if (problems.empty()) {
    std::cout << "coverage gate (--require " << options.require << "): passed\n";
    return 0;
  }
  std::cout << "coverage gate (--require " << options.require << "): " << problems.size() << " problem(s)\n";
  for (const std::string& p : problems) std::cout << "  " << p << "\n";
  return 1;
}

}  // namespace meshtest::runner
