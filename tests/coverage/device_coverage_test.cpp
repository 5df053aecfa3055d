// The coverage report's logic (runner/cli/device_coverage.h) on made-up
// records: reached items list their cases, an unreached item without a
// reason is a problem (unless mesh-only under --require single-chip), a path
// no declaration names is a problem, and so is a case that did not compile.
#include "runner/cli/device_coverage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "runner/cli/coverage_reasons.h"
#include "runtime/device/kernel_variants.h"

namespace meshtest::runner {
namespace {

reports::CaseResult compiled_case(const std::string& id, std::vector<std::string> variants,
                                  const std::string& stats = "verify.ops=3 lower.instructions=3") {
  reports::CaseResult r;
  r.test_id = id;
  r.arch = "n150";
  r.outcome = reports::Outcome::Skipped;
  r.phase = "compile";
  r.kernel_variants = std::move(variants);
  r.compile_stats = stats;
  return r;
}

const CoverageItem& item(const DeviceCoverage& cov, const std::string& name) {
  const auto it =
      std::find_if(cov.items.begin(), cov.items.end(), [&](const CoverageItem& i) { return i.name == name; });
  EXPECT_NE(it, cov.items.end()) << name;
  return *it;
}

bool mentions(const std::vector<std::string>& problems, const std::string& text) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& p) { return p.find(text) != std::string::npos; });
}

// compile_stats with every pass and rewrite counter at 1.
std::string every_pass_counter() {
  std::string stats;
  for (const char* counter : {"verify.ops", "shard.collectives", "shard.fallbacks", "decompose.batch_norm", "fuse.gelu",
                              "fuse.softmax", "fuse.layer_norm", "fuse.rms_norm", "fuse.sdpa", "const-eval.ops_folded",
                              "lower.instructions", "lower-dtypes.bfp8_weights", "lower-dtypes.reduced_fidelity_gemms",
                              "tile-layout.padding_bytes", "plan-memory.l1_buffers"}) {
    stats += std::string(counter) + "=1 ";
  }
  return stats;
}

std::vector<std::string> split_counters(const std::string& stats) {
  std::vector<std::string> out;
  std::istringstream in(stats);
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// Records that reach every declared item: one case per item, passes included.
std::vector<reports::CaseResult> reaching_everything() {
  std::vector<std::string> all;
  for (const runtime::KernelVariantItem& k : runtime::all_kernel_variants()) all.push_back(k.name);
  return {compiled_case("a-everything", all, every_pass_counter())};
}

// Records that reach every item no reason is declared for by name (the zoo's reach).
std::vector<reports::CaseResult> reaching_what_is_reachable() {
  std::vector<std::string> all;
  for (const runtime::KernelVariantItem& k : runtime::all_kernel_variants()) {
    const auto why = unreachable_reason(k.name);
    if (!why || !why->by_name) all.push_back(k.name);
  }
  std::string stats;
  for (const std::string& counter : split_counters(every_pass_counter())) {
    const auto why = unreachable_reason("pass:" + counter.substr(0, counter.find('=')));
    if (!why || !why->by_name) stats += counter + " ";
  }
  return {compiled_case("a-everything", all, stats)};
}

TEST(DeviceCoverage, EverythingReachedHasNoProblem) {
  const DeviceCoverage cov = measure_coverage(reaching_what_is_reachable());
  EXPECT_EQ(cov.cases, 1u);
  EXPECT_TRUE(coverage_problems(cov, CoverageScope::All).empty());
  EXPECT_EQ(item(cov, "pass:fuse.sdpa").cases, std::vector<std::string>{"a-everything @n150"});
}

TEST(DeviceCoverage, AnUnreachedVariantIsAProblem) {
  auto results = reaching_what_is_reachable();
  auto& v = results[0].kernel_variants;
  v.erase(std::remove(v.begin(), v.end(), "sdpa[mask=per_query]"), v.end());
  const DeviceCoverage cov = measure_coverage(results);
  EXPECT_TRUE(item(cov, "sdpa[mask=per_query]").cases.empty());
  const auto problems = coverage_problems(cov, CoverageScope::All);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_TRUE(mentions(problems, "sdpa[mask=per_query]: reached by no case"));
  std::ostringstream out;
  print_coverage(out, cov, {});
  const std::string text = out.str();
  const size_t unreached = text.find("UNREACHED (");
  ASSERT_NE(unreached, std::string::npos) << text;
  EXPECT_NE(text.find("\n  sdpa[mask=per_query]\n", unreached), std::string::npos) << text;
}

TEST(DeviceCoverage, MeshOnlyItemsMayStayUnreachedOnASingleChip) {
  auto results = reaching_what_is_reachable();
  auto& v = results[0].kernel_variants;
  v.erase(std::remove(v.begin(), v.end(), "all_reduce"), v.end());
  const DeviceCoverage cov = measure_coverage(results);
  EXPECT_TRUE(coverage_problems(cov, CoverageScope::SingleChip).empty());
  EXPECT_TRUE(mentions(coverage_problems(cov, CoverageScope::All), "all_reduce: reached by no case"));
}

TEST(DeviceCoverage, UndeclaredPathsAndUncompiledCasesAreProblems) {
  auto results = reaching_what_is_reachable();
  results.push_back(compiled_case("b-new-path", {"linear", "linear[fidelity=HiFi5]"}, "fuse.swiglu=2"));
  reports::CaseResult broken = compiled_case("c-broken", {});
  broken.status = "EXPECTED_PASSING";
  broken.error_message = "compile error: op #3 sdpa";
  results.push_back(broken);
  reports::CaseResult xfail = broken;  // a known failure that does not compile is no problem of coverage
  xfail.test_id = "d-xfail";
  xfail.status = "KNOWN_FAILURE_XFAIL";
  results.push_back(xfail);
  const auto problems = coverage_problems(measure_coverage(results), CoverageScope::All);
  EXPECT_TRUE(mentions(problems, "linear[fidelity=HiFi5] (b-new-path @n150)")) << problems.size();
  EXPECT_TRUE(mentions(problems, "pass:fuse.swiglu (b-new-path @n150)"));
  EXPECT_TRUE(mentions(problems, "not compiled: c-broken @n150: compile: compile error: op #3 sdpa"));
  EXPECT_FALSE(mentions(problems, "d-xfail"));
}

TEST(DeviceCoverage, AReasonForAReachedPathIsStale) {
  const auto problems = coverage_problems(measure_coverage(reaching_everything()), CoverageScope::All);
  // reaching_everything reaches batch_norm too, whose reason is then stale.
  EXPECT_TRUE(mentions(problems, "batch_norm: reached by a-everything @n150, but declared unreachable"));
}

TEST(DeviceCoverage, DeclaredReasonsExplainUnreachedStableHloOps) {
  const DeviceCoverage cov = measure_coverage({});
  EXPECT_FALSE(item(cov, "popcnt").reason.empty());
  EXPECT_TRUE(item(cov, "sdpa").reason.empty());
  EXPECT_FALSE(item(cov, "batch_norm").reason.empty());
}

}  // namespace
}  // namespace meshtest::runner
