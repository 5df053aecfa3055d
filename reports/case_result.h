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
Outcome parse_outcome(std::string_view name);     // inverse of outcome_name; unknown: Error
std::string_view failure_kind_name(FailureKind kind);  // "", "exception", "crash", ...
FailureKind parse_failure_kind(std::string_view name);  // inverse of failure_kind_name; unknown: None

struct OutputResult {
  std::string name;
  double pcc = NAN;
  double atol = NAN;
  double rel_l2 = NAN;
  bool passed = false;
  // "output" (a graph output), "gradient" (a parameter's gradient in
  // training; name is the parameter's) or "updated_weight" (after
  // --optimizer-step; name is the parameter's).
  std::string kind = "output";
  double norm_ratio = NAN;  // ||device|| / ||golden||
  // The checks that judged it (comparators OutputMetrics::decided_by):
  // "pcc+scale", "allclose+scale" (fewer elements than PCC needs),
  // "magnitude" (a vanishing gradient), ...; empty: not recorded.
  std::string decided_by = "";
};

struct PhaseSeconds {
  double load = 0, golden = 0, compile = 0, execute = 0, compare = 0;
  double total() const { return load + golden + compile + execute + compare; }
};

// Bytes per phase of a case (run --log-memory: the host's peak resident
// memory in each; load covers loading the model and its inputs). 0: not logged.
struct PhaseBytes {
  int64_t load = 0, golden = 0, compile = 0, execute = 0, compare = 0;
};

struct CaseResult {
  // Identity.
  std::string test_id;
  std::string loader_dir, model, variant, parallelism, run_mode;
  std::string group, task, source, framework;
  std::string arch, mesh;  // mesh as "1x1"; arch is part of the store's key
  // Settings that change numerics, as the case ran with them (CLI over YAML
  // over defaults): a bfp8 result must not read as a bf16 one.
  std::string weights_dtype;        // "bf16" | "bfp8_b"
  std::string math_fidelity;        // "LoFi" | "HiFi2" | "HiFi3" | "HiFi4"
  int optimization_level = -1;      // -1: not recorded (results from before schema 5)
  int64_t batch_size = 0;           // requested batch (data parallel: the enlarged one); 0: the loader's default
  int64_t sequence_length = 0;      // requested sequence length; 0: the loader's default
  std::vector<std::string> markers;
  // Expectation (from test_config) and what happened.
  std::string status = "UNSPECIFIED";
  std::string reason;  // the config's reason (xfail/skip)
  Outcome outcome = Outcome::Error;
  std::string bringup_status = "UNKNOWN";
  std::string phase;  // last phase entered
  FailureKind failure_kind = FailureKind::None;
  std::string error_message;
  // The failure's class from test_config/failure_reasons.yaml (reports/failure_classes.h),
  // set when a failed, error or xfailed result is recorded; empty for any other.
  std::string failure_class;      // "DEVICE_DRAM_OOM", "PCC_BELOW_THRESHOLD", ..., "UNCLASSIFIED"
  std::string failure_component;  // frontend | compiler | runtime | device | comparison | infrastructure | a project's own
  std::string failure_summary;    // the class's summary group, or the message's first line
  // Op-level golden: the first device op past its per-op thresholds
  // (runner/pipeline/op_golden.h describe_row); empty: none, or not run.
  std::string first_bad_op;
  // A model that routes (top-k experts): the choices the golden checked and,
  // of them, those where it followed the device's over its own (bf16 near-ties;
  // runner/pipeline/device_routing.h). 0 and 0: no routing.
  int64_t routing_rows = 0;
  int64_t routing_followed = 0;
  std::string saved_tensors;  // --save-tensors: the folder this failure's tensors went to; empty: none saved
  // run --emitc: the generated C++ program's verdict against the device
  // (matched_exact, matched_pcc, mismatch, build_failed, run_failed,
  // not_generated); empty when not asked. codegen_seconds: generating,
  // building (0 when cached) and running it.
  std::string codegen_status;
  double codegen_seconds = 0;
  // Comparison.
  double pcc = NAN;  // minimum over outputs
  double atol = NAN;
  double rel_l2 = NAN;
  double required_pcc = NAN, required_atol = NAN;
  bool assert_pcc = true, assert_atol = false, assert_allclose = false;
  double scale_tolerance = NAN;  // the output scale check's |norm ratio - 1| bound; NaN: not asserted
  std::vector<OutputResult> outputs;
  // Cost.
  PhaseSeconds seconds;
  double wall_seconds = 0;
  int64_t peak_host_rss_bytes = 0;
  PhaseBytes peak_host_rss_by_phase;  // run --log-memory; all 0 without it
  int64_t peak_device_dram_bytes = 0;  // per chip
  int64_t peak_device_l1_bytes = 0;    // per core, per chip
  int64_t device_ops = 0;
  // Modelled device time of one execution on this arch (the roofline of
  // runtime/device/cost_model.h; 0: not modelled, e.g. the compile failed).
  double modelled_device_seconds = 0;
  std::string modelled_top_ops;  // "conv2d 61% matrix, add 9% dram, ..." (share of modelled time, bound)
  // Perf mode (--perf or the marker `perf`): timed executions after warm-up.
  int64_t perf_iterations = 0;        // 0: not a perf run
  double perf_execute_seconds = 0;    // median seconds of one timed execution
  bool perf_device_timed = false;     // perf_execute_seconds is the device's own time (pjrt), not the host's
  // --perf --batch 1,2,4,...: each batch's latency and samples/s
  // (runner/pipeline/batch_sweep.h), "b=1 2.100 ms 476.2/s; ...; stopped: why".
  std::string perf_batch_sweep;
  double samples_per_second = 0;      // modelled: batch / modelled_device_seconds (every compiled case)
  // Mesh execution (single chip: one entry, no collectives).
  std::vector<int64_t> per_chip_peak_dram_bytes;  // index = chip id
  int64_t collectives_executed = 0;
  int64_t bytes_moved_between_chips = 0;
  int64_t device_bytes_leaked = 0;  // device memory still allocated after the case, all chips; must be 0
  std::string sharding_fallbacks;   // ops the sharding pass gathered to replicated, "op #12 conv2d: why; ..."
  std::string execution_pass;       // training: FORWARD | BACKWARD (from YAML or the failing pass)
  // The backend that ran the case (`--backend`) and what it reported: a PJRT
  // plugin's platform name and version, its device kind and how many devices
  // the case used, and the case's settings the backend could not apply.
  std::string backend;
  std::string backend_platform;             // "meshtest 0.1.0 simulated n150", "cuda 12.8 ..."
  std::string backend_device;               // "wormhole_b0 x 8", "NVIDIA H100 80GB HBM3 x 1"
  std::string backend_options_not_applied;  // "math_fidelity=LoFi; optimization_level=1" (empty: all applied)
  // A digest of the device's outputs (16 hex digits; floating outputs as the
  // f32 values they hold, so the same numbers give the same digest whatever
  // dtype a backend returns them in): two backends, or two runs, computed
  // the same bits exactly when their digests are equal. Empty: not executed.
  std::string device_outputs_digest;
  bool compile_cache_hit = false;
  std::string compile_stats;  // pass statistics, "const-eval.ops_folded=53 fuse.ops_fused=120 ..."
  // The device paths the compiled program takes (runtime/device/kernel_variants.h
  // items, sorted): "linear", "linear[fidelity=LoFi]", "sdpa[mask=per_query]"; `meshtest coverage`.
  std::vector<std::string> kernel_variants;
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
  // arch: every arch a shard of the run began on, "n150,p150" (sorted).
  std::string git_sha, host, argv, arch, selection, versions;
  std::string started_at, finished_at;
  // Set when a signal stopped the run ("" otherwise): when, and which ("SIGTERM").
  std::string interrupted_at, interrupted_by;
};

// ISO 8601 UTC timestamp of now, with milliseconds.
std::string utc_now_iso8601();

}  // namespace meshtest::reports
