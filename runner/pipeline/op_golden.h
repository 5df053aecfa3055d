// Op-level golden (`meshtest run --op-golden DIR`, YAML `op_golden: true`):
// every device op's result is compared with the CPU reference of that one op
// run on the device's *own* operands (runtime::run_reference_op), so errors
// do not accumulate and the first op whose local result is off names where
// the error enters. Per chip on a mesh. The rows go to
// DIR/<case>/op_golden.jsonl; the first op past the per-op thresholds goes
// to the result record (first_bad_op), the console and the dashboard, and
// fails the case when the check is on.
//
// The checks run on a thread of their own while the device goes on with its
// next ops (observe() hands over the op's operands and result, which share
// storage with the device's, and returns), so the check overlaps the device
// instead of following it; finish() waits for the last one.
#pragma once

#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "core/tensor.h"

namespace meshtest::runner {

// Per-op thresholds, from the honest per-op noise of the PR selection
// (`-m "single_device and expected_passing and (inference or push)"`, bf16,
// the bfp8_b / LoFi / -O1 cases as their YAML runs them; docs/how-to/debug-a-failure.md "Op-level
// golden"): the worst local |norm ratio - 1| is 0.0027 (a scalar constant
// rounded to bf16), so 0.005 keeps a 1.9x margin and still catches a kernel
// scaled by 1% (0.01). The worst local PCC is 0.9836 (an add in gpt2_tiny's
// backward whose bf16 result has a large mean and a small spread: its
// rounding is a large part of the spread; inference ops stay above 0.9995),
// so 0.97 keeps a 1.8x margin on 1 - PCC.
inline constexpr double kDefaultOpRequiredPcc = 0.97;
inline constexpr double kDefaultOpScaleTolerance = 0.005;
// Elementwise ops (the unary and binary elementwise families) with a bf16
// result are also held to a per-element bound in bf16 ulp
// (comparators::max_bf16_ulp_error): each result element depends on one or
// two operand elements, so a kernel that computes in f32 and rounds to
// nearest even is within 0.5 ulp of the reference on the same operands (the
// PR selection's worst: see docs/how-to/debug-a-failure.md), whatever the model.
// 2 keeps a 4x margin; a wrong formula is far past it (tanh-GELU for
// erf-GELU: thousands of ulp where gelu's result is small).
inline constexpr double kDefaultOpMaxUlp = 2.0;

// The row-wise normalizations (softmax, layer_norm, rms_norm, batch_norm)
// are also held to how their bf16 errors are spread, on results of at least
// kMinUlpSpreadElements elements (comparators::bf16_ulp_stats, over the
// elements at or above its floor): computed in f32 and rounded once, their
// errors average a quarter ulp with no bias, so an approximation well inside
// the per-element bound shows in the mean. The PR selection's honest worst:
// mean |error| 0.2537 ulp (a softmax of 1,024 elements), bias 3.3 standard
// errors (0.29 / sqrt(n) ulp); its approximation mutants: a fast rsqrt in
// layer_norm / rms_norm is biased by 97 to 635 standard errors (-0.14 to
// -0.26 ulp), an approximate exp in softmax has a mean |error| of 0.39 ulp
// and a bias of 13 to 27 standard errors. So: |bias| within
// kUlpBiasStandardErrors standard errors (2.1x the honest worst, 1.9x under
// the nearest mutant), mean |error| within 0.25 + max(0.03, 6 standard
// errors of a mean |error|, 0.144 / sqrt(n)) ulp.
inline constexpr int64_t kMinUlpSpreadElements = 256;
inline constexpr double kUlpBiasStandardErrors = 7.0;
// The failure's text ("" when within): the mean |error| and the bias of a
// normalization's result against their bounds for `counted` elements.
std::string ulp_spread_failure(double mean_abs, double bias, int64_t counted);

struct OpThresholds {
  double required_pcc = kDefaultOpRequiredPcc;
  double scale_tolerance = kDefaultOpScaleTolerance;  // on |norm ratio - 1|
  // Elementwise and normalization bf16 results; inf: off (and with it the
  // normalizations' ulp_spread_failure).
  double max_ulp = kDefaultOpMaxUlp;
  // Contractions (matmul, linear, conv2d, reduce_sum/mean) held element by
  // element to the f32 accumulation bound of their length K
  // (accumulation_bound.h).
  bool accumulation_bound = true;
  // Compare every element of every op (the report, --op-golden DIR); false
  // (the check): large elementwise ops on a sample of their elements
  // (element_sample.h), large contractions on a sample of their rows or
  // channels (contraction_sample.h).
  bool every_element = false;
};

// One device op on one chip, as op_golden.jsonl holds it.
struct OpGoldenRow {
  int chip = 0;
  size_t index = 0;       // position in the device program
  std::string op;         // op name
  std::string origin;     // the graph op it came from ("op #12 gelu")
  std::string layer;      // the loader's layer path (layer_paths), "" when unknown
  std::vector<Shape> operand_shapes;
  Shape shape;            // result shape
  std::string dtype;      // result dtype on the device
  std::string status;     // "checked", "no_reference" (the reference has no kernel), "error"
  std::string note;       // why not checked
  double pcc = 1.0;
  double atol = 0.0;        // max |device - reference|
  double norm_ratio = 1.0;  // ||device|| / ||reference||
  bool equal = false;       // every element the same (data movement is held to it)
  double max_ulp = NAN;     // bf16 results rounded once (op_check.cpp): worst error in bf16 ulp; NaN: not measured
  double ulp_mean_abs = NAN;  // with max_ulp: mean |error| in ulp (comparators::bf16_ulp_stats)
  double ulp_bias = NAN;      // with max_ulp: mean error toward the magnitude, in ulp
  int64_t ulp_counted = 0;    // the elements those means are over
  int64_t k = 0;            // contractions: the accumulation length; 0: not a contraction checked so
  double accumulation_ratio = NAN;  // worst |device - reference| / its K-derived bound; NaN: not measured
  int64_t sampled = 0;      // the result elements compared, when a sample (OpThresholds::every_element); 0: all
  bool past = false;        // past the per-op thresholds
  bool first = false;       // the first op past them (program order, then chip)
};

// Collects the rows of one execution; observe() may be called concurrently
// (chips of a mesh). The checks run on one thread, in the order observed.
class OpGolden {
 public:
  explicit OpGolden(OpThresholds thresholds) : thresholds_(thresholds) {}
  ~OpGolden();
  OpGolden(const OpGolden&) = delete;
  OpGolden& operator=(const OpGolden&) = delete;
  // Queues the op's check (waits while the queued ops hold more than
  // kMaxQueuedBytes, so a slow check bounds the memory it keeps alive: the
  // device cannot reuse a queued op's buffers, and fresh memory costs more
  // than the wait: bert_base with the check ran about 10% faster with 16 MiB
  // than with 64 or 512, resnet50 and llama_tiny the same within noise).
  void observe(const backend::OpExecution& op);
  // Waits for every queued check; the rows in program order (then chip), the
  // first past flagged.
  std::vector<OpGoldenRow> finish();

  static constexpr size_t kMaxQueuedBytes = size_t{16} << 20;

 private:
  struct Queued;
  void enqueue(std::shared_ptr<Queued> queued);
  // A collective on a mesh: kept until every chip has run it, then queued
  // as one check (collective_check.h).
  void observe_collective(const backend::OpExecution& e);
  void check_loop();
  void stop();

  OpThresholds thresholds_;
  std::once_flag layers_once_;
  std::vector<std::string> layers_;  // per instruction of the observed program
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<Queued>> queue_;
  size_t queued_bytes_ = 0;
  bool closing_ = false;
  double busy_seconds_ = 0.0;  // wall time checking, on the checker thread (debug log)
  double cpu_seconds_ = 0.0;   // its CPU time
  std::thread checker_;
  std::vector<OpGoldenRow> rows_;
  std::map<size_t, std::shared_ptr<Queued>> collectives_;  // by program index, until every chip is in
};

// The loader's layer path of every instruction: the IR names no layers, but
// a loader names its weights by layer ("bert.encoder.layer.0.output.dense.
// weight"), so an op reading a weight is in that weight's layer (the name
// without its last part), and any other op is in the layer of its first
// operand's producer ("" for ops fed only by inputs).
std::vector<std::string> layer_paths(const DeviceProgram& program);

// The flagged row, or nullptr when every op is within its thresholds.
const OpGoldenRow* first_past(const std::vector<OpGoldenRow>& rows);
// "op #12 gelu in bert.encoder.layer.0.intermediate.dense (device op 40, chip 0,
// bf16[1,128,3072]): local pcc 0.999991, scale 1.0500, max abs error 0.01"
std::string describe_row(const OpGoldenRow& row);
// One JSON object per line.
std::string op_golden_jsonl(const std::vector<OpGoldenRow>& rows);

// Op-level golden for one case: a report (--op-golden DIR), a check
// (--op-golden-check or YAML op_golden: true), and the per-op thresholds.
struct OpGoldenPlan {
  bool report = false;
  bool check = false;
  OpThresholds thresholds;
  bool enabled() const { return report || check; }
};

}  // namespace meshtest::runner
