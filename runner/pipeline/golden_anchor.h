// Golden-anchored intermediate checks (issue 33 part 3), run beside the
// op-level golden (op_golden.h) whenever it is on for a one-chip case:
//
// 1. Intermediates against the golden. The per-op check re-runs each device
//    op on the device's *own* operands and attributes, so a compiler pass
//    that computes a wrong constant or attribute (an eps lost while fusing a
//    normalization) yields device ops that each look right. Here every device
//    result that holds a value of the un-compiled graph (DeviceBuffer::value:
//    the passes keep a value's id; a fused op's result is the value of the
//    last op it replaced) is compared with that value in a CPU reference run
//    of the same graph on the same inputs. The errors of bf16 accumulate
//    along the graph, so the bound is loose (kDefaultAnchorRelL2), and the
//    first intermediate past it (program order) names where a wrong value
//    entered: its op, origin and layer path. As a check (not the report), a
//    large value is compared on a sample (element_sample.h): the figures are
//    the sample's, its sums of squares scaled to the value's element count.
// 2. Weights against the golden's. Each weight as the device holds it
//    (bf16, bfp8_b) is compared element by element with the graph's f32
//    weight, within what the conversion may lose: bf16 2^-7 of the element,
//    bfp8_b 2^-6 of its block's largest magnitude (twice the round-to-nearest
//    bound of each), and its norm within 1%. The per-op check cannot see an encoder that shrinks weights: its
//    reference is fed the already converted ones.
// Figures and the measured honest noise: docs/explanation/checks.md
// "Golden-anchored intermediates".
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "reports/case_result.h"
#include "runner/pipeline/element_sample.h"
#include "runner/pipeline/op_golden.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

// Relative L2 error allowed on an intermediate (||device - golden|| /
// scale, the scale its norm, or where it cancels its operands the norm it
// would have without cancelling: golden_anchor.cpp value_scale). The PR
// selection's worst honest intermediate is 0.061 (llama_tiny training's
// rope backward; inference <= 0.046; docs/explanation/checks.md), so 0.2
// keeps a 3.3x margin.
inline constexpr double kDefaultAnchorRelL2 = 0.2;
// Below this many elements, or where the golden's norm is this small
// relative to the largest magnitude seen so far, a value is not judged
// (recorded only): rel_l2 of a near-zero tensor measures rounding, not error.
inline constexpr int64_t kAnchorMinElements = 8;
// An error that enters at one op: an intermediate is also past when its
// rel_l2 exceeds kAnchorJumpFloor and kAnchorJumpFactor times the largest
// of its compared operands' (floored at kAnchorJumpFloor): the first op a
// wrong constant reaches, early in a model where the accumulated bound is far.
// Honest ops grow the error by at most 2.6x (llama_tiny's rms_norm), softmax
// and sdpa aside (held to the absolute bound only): 8 keeps a 3x margin.
inline constexpr double kAnchorJumpFloor = 0.01;
inline constexpr double kAnchorJumpFactor = 8.0;

struct AnchorRow {
  size_t index = 0;     // device program position
  std::string op;       // device op name
  std::string origin;   // "op #12 layer_norm"
  std::string layer;    // the loader's layer path, "" when unknown
  Shape shape;
  double pcc = 1.0;
  double rel_l2 = 0.0;
  double norm_ratio = 1.0;
  double inherited = 0.0;  // the largest rel_l2 among its compared operands
  int64_t sampled = 0;     // elements compared, when a sample (element_sample.h); 0: all
  double bound = kDefaultAnchorRelL2;  // the rel_l2 allowed
  bool judged = true;   // false: too small (kAnchorMinElements) or LoFi GEMMs
  bool past = false;
};

struct WeightRow {
  std::string name;
  std::string dtype;         // device dtype
  double worst_ratio = 0.0;  // worst |device - golden| / allowed, over elements
  double norm_ratio = 1.0;   // ||device|| / ||golden||
  int64_t sampled = 0;       // elements compared, when a sample (element_sample.h); 0: all
  bool past = false;
};

struct AnchorReport {
  std::vector<AnchorRow> rows;      // program order
  std::vector<WeightRow> weights;   // first use order
  std::string note;                 // why nothing was compared, if so
  // The failure's message ("" when none): the first weight past its bound,
  // then the first intermediate past its bound.
  std::string failure;
};

// A golden value's size: its norm, the scale its error is measured against
// (golden_anchor.cpp value_scale) and its element count.
struct AnchorMagnitude {
  double norm = 0.0;   // ||value||
  double scale = 0.0;  // what its error is measured against (>= norm)
  int64_t numel = 0;
};

class GoldenAnchor {
 public:
  // `graph`: the graph the device compiled (must outlive this object).
  // `every_element`: compare large values whole (the report) rather than on
  // a sample (the check: element_sample.h).
  GoldenAnchor(const Graph& graph, bool every_element = false, double rel_l2_bound = kDefaultAnchorRelL2);
  // Device side (a backend::OpExecution observer): keeps chip 0's results by
  // graph value and checks each weight the first time an op reads it.
  void observe(const backend::OpExecution& e);
  // Once the device has run: a hook for a CPU reference run of the graph on
  // the inputs the device was fed, comparing each value as that run makes it
  // (the inference golden is such a run, so it is watched rather than
  // repeated). A topk_mask's golden takes the device's mask (its routing:
  // device_routing.h checks the choice itself), so the values after it stay
  // comparable. Later device executions (perf) are no longer kept.
  runtime::ReferenceOpHook watch();
  // The comparisons the watched run made, and the weights' (call once, after it).
  AnchorReport report();
  // watch() on a reference run of its own, then report().
  AnchorReport finish(const std::map<std::string, Tensor>& inputs);

 private:
  struct Kept {
    size_t index;
    std::string op, origin, layer;
    Shape shape;
    Tensor kept;  // the result's sample (a copy, flat); the whole result for a routing mask
  };
  // `dtype`: the buffer's device dtype (a bfp8_b weight reaches the kernel decoded).
  void check_weight(const std::string& name, DType dtype, const Tensor& device);
  // The runs of a value of `numel` elements it compares (all, or a sample).
  std::vector<SampleRun> runs(int64_t numel) const;
  // The watch hook's body: one golden value against the device's.
  void compare_value(const Op& op, const std::vector<Tensor>& operands, Tensor& result);

  const Graph& graph_;
  bool every_element_;
  double bound_;
  std::mutex mutex_;
  bool mesh_ = false;
  bool finished_ = false;  // later executions (perf) are not kept
  // LoFi GEMMs truncate their operands on purpose (each result ~2% low),
  // which accumulates far past any bf16 bound (vit_tiny: 0.20 at a softmax):
  // such a case's intermediates are recorded, not judged (its weights still
  // are). HiFi2/HiFi3 cases stay within the bf16 bound and are judged.
  bool reduced_fidelity_ = false;
  std::vector<std::string> layers_;
  std::map<ValueId, Kept> kept_;
  std::set<std::string> weights_seen_;
  std::vector<WeightRow> weights_;
  // The watched run's state: every float value's magnitude, the rel_l2 of
  // each value compared, the rows so far.
  std::map<ValueId, AnchorMagnitude> magnitudes_;
  std::map<ValueId, double> weight_norms_;  // the golden's norm of each weight whose conversion was checked
  std::map<ValueId, double> errors_;
  std::vector<AnchorRow> rows_;
};

// A converted weight against the golden's (bf16 or bfp8_b `dtype`; `device`
// as the device holds it, or decoded to f32; `golden` f32): the worst
// element's error over what the conversion may lose, and the norm ratio.
struct ConvertedWeightFigures {
  double worst_ratio = 0.0;
  double norm_ratio = 1.0;
  double golden_norm = 0.0;  // ||golden||
  int64_t sampled = 0;       // elements compared, when a sample; 0: all
};
ConvertedWeightFigures converted_weight_figures(const Tensor& device, DType dtype, const Tensor& golden);
// The same for the anchor's weight check: a large bf16 weight on its window
// sample (element_sample.h) unless `every_element`, its golden norm scaled to
// the whole weight's; a bfp8_b weight whole (its blocks).
ConvertedWeightFigures checked_weight_figures(const Tensor& device, DType dtype, const Tensor& golden,
                                              bool every_element);

// "op #12 layer_norm in bert.encoder.layer.0.attention.output.LayerNorm
// (device op 40, bf16[1,128,128]): rel_l2 0.21, pcc 0.98, scale 1.19".
std::string describe_anchor_row(const AnchorRow& row);
// One JSON object per line: the intermediates, then the weights.
std::string golden_anchor_jsonl(const AnchorReport& report);

// The case pipeline's end of it, once the device has run: the report
// `make_report` gives (GoldenAnchor::report after the golden it watched, or
// GoldenAnchor::finish; an exception becomes the report's note: the golden
// phase reports a reference that fails), written to
// DIR/<case>/golden_anchor.jsonl under --op-golden DIR; returns the failure's
// message when the check is on (plan.check), else "".
std::string record_golden_anchor(const std::function<AnchorReport()>& make_report, const OpGoldenPlan& plan,
                                 const std::string& dir, reports::CaseResult& r);
// Adds an anchor failure to a case's verdict: fails a passing case, and
// names the first diverging intermediate in a failing one's message too.
void add_anchor_failure(const std::string& failure, bool& passed, std::string& message);

}  // namespace meshtest::runner
