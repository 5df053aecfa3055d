// Coverage of the device's paths by a set of cases (`meshtest coverage`):
// every kernel variant the device can run (runtime/device/kernel_variants.h)
// and every compiler pass and rewrite (the simulated backend's pass list and
// the declared rewrite counters below), each with the cases whose compiled
// program reached it, those no case reached (with the reason, where one is
// declared in coverage_reasons.h), and the problems that make the gate fail.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "reports/case_result.h"

namespace meshtest::runner {

struct CoverageItem {
  std::string name;  // "linear[fidelity=LoFi]", "pass:fuse.sdpa"
  bool mesh_only = false;
  std::vector<std::string> cases;  // "<test id> @<arch>", sorted
  std::string reason;              // why no case of the zoo can reach it ("" : none declared)
};

struct DeviceCoverage {
  std::vector<CoverageItem> items;        // kernels in OpKind order, then passes in pipeline order
  std::vector<std::string> undeclared;    // "item (case)": reached but not declared (a new path)
  std::vector<std::string> not_compiled;  // "<id> @<arch>: phase: message": an expected-passing case with no program
  std::vector<std::string> not_compiled_other;  // the same, of cases not expected to pass (listed, not a problem)
  size_t cases = 0;                             // results with a compiled program
};

// Which unreached items are problems: every one (`all`), or only those a
// single chip can reach (`single-chip`: mesh-only items may stay unreached).
enum class CoverageScope { All, SingleChip };

// The coverage of `results` (each a case's record with its kernel_variants and compile_stats).
DeviceCoverage measure_coverage(const std::vector<reports::CaseResult>& results);

// What fails the gate under `scope`: unreached items without a reason,
// undeclared items, reasons declared for items a case did reach (stale), and
// expected-passing cases that did not compile.
std::vector<std::string> coverage_problems(const DeviceCoverage& coverage, CoverageScope scope);

struct CoverageView {
  bool list_cases = false;  // -v: every case of each item, not the first and a count
};
void print_coverage(std::ostream& out, const DeviceCoverage& coverage, const CoverageView& view);

}  // namespace meshtest::runner
