// The result record: one per case per attempt, the single source every report
// (console, JUnit XML, SQLite) is written from. Field meanings follow
// DESIGN.md §3 "Results".
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshtest::reports {

enum class Outcome { Passed, Failed, Skipped, Xfailed, Xpassed, Error };
enum class FailureKind { None, Exception, Crash, Hang, Timeout, Oom };

std::string_view outcome_name(Outcome outcome);  // "passed", "failed", ...
std::string_view failure_kind_name(FailureKind kind);  // "", "exception", "crash", ...

struct OutputResult {
  std::string name;
  double pcc = NAN;
  double atol = NAN;
  double rel_l2 = NAN;
  bool passed = false;
};

struct PhaseSeconds {
  double load = 0, golden = 0, compile = 0, execute = 0, compare = 0;
  double total() const { return load + golden + compile + execute + compare; }
};

struct CaseResult {
  // Identity.
  std::string test_id;
  std::string loader_dir, model, variant, parallelism, run_mode;
  std::string group, task, source, framework;
  std::string arch, mesh;  // mesh as "1x1"
  std::vector<std::string> markers;
  // Expectation (from test_config) and what happened.
  std::string status = "UNSPECIFIED";
  std::string reason;  // the config's reason (xfail/skip)
  Outcome outcome = Outcome::Error;
  std::string bringup_status = "UNKNOWN";
  std::string phase;  // last phase entered
  FailureKind failure_kind = FailureKind::None;
  std::string error_message;
  // Comparison.
  double pcc = NAN;  // minimum over outputs
  double atol = NAN;
  double rel_l2 = NAN;
  double required_pcc = NAN, required_atol = NAN;
  bool assert_pcc = true, assert_atol = false, assert_allclose = false;
  std::vector<OutputResult> outputs;
  // Cost.
  PhaseSeconds seconds;
  double wall_seconds = 0;
  int64_t peak_host_rss_bytes = 0;
  int64_t peak_device_dram_bytes = 0;  // per chip
  int64_t peak_device_l1_bytes = 0;    // per core, per chip
  int64_t device_ops = 0;
  bool compile_cache_hit = false;
  std::string compile_stats;  // pass statistics, "const-eval.ops_folded=53 fuse.ops_fused=120 ..."
  int attempt = 1;
  std::string started_at, finished_at;  // ISO 8601 UTC
  // The isolated worker's stdout+stderr, size-capped (empty when run in-process).
  std::string captured_output;
  // What to do about it (RM_XFAIL, ADD_CONFIG, ENABLE_PCC, RAISE_PCC). Writers
  // derive the tags from the other fields (reports/guidance.h); this holds
  // the tags as stored, when a result is read back from a store.
  std::vector<std::string> guidance;
};

// One invocation of `meshtest run`.
struct RunInfo {
  std::string run_id;
  std::string git_sha, host, argv, arch, selection, versions;
  std::string started_at, finished_at;
};

// ISO 8601 UTC timestamp of now, with milliseconds.
std::string utc_now_iso8601();

}  // namespace meshtest::reports
