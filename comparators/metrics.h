// Device-vs-golden comparison: PCC, max |a-b| (atol), allclose, equality and
// relative L2 over every element (one pass; exact or within about 1e-6 of
// exact, figure by figure: pair_scan.h), plus the verdict of a case from the
// checks its config enables.
//
// Edge cases are defined, not accidental:
//  - shapes differ: fails with both shapes named;
//  - NaN or inf in either tensor: fails with the counts per side (a NaN never
//    hides behind a minimum or a sum);
//  - empty tensors (both): equal, PCC 1;
//  - PCC is always computed (no allclose short-cut: a near-identical output
//    reports its real PCC, 0.9999..., never a made-up 1);
//  - when either side has zero variance (constant and single-element
//    tensors) Pearson correlation is undefined: PCC is 1 if the tensors are
//    allclose(allclose_rtol, allclose_atol) and 0 if not;
//  - norm_ratio = ||device|| / ||golden|| (1 when both are 0, inf when only
//    the golden is): the scale check PCC cannot make (an output off by a
//    factor keeps PCC 1);
//  - an output of fewer than kMinPccElements elements is not judged by PCC
//    (below), and `decided_by` names the checks that judged each output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace meshtest::comparators {

// The PCC a case requires unless its YAML says (required_pcc).
inline constexpr double kDefaultRequiredPcc = 0.99;
// How far an output's L2 norm may be from the golden's, |ratio - 1|, unless
// its YAML says (scale_tolerance; assert_scale: false turns the check off).
// bf16 rounding moves an output's norm by up to 0.82% (mobilenet_v2_tiny:
// per-channel batch-norm scales rounded to bf16 compound over 17 blocks;
// CNNs 0.2-0.8%, transformers under 0.03%; `-m expected_passing`,
// docs/explanation/checks.md), so 2% keeps a 2.4x margin and still fails a kernel scaled by 5%;
// a family with a lower floor may set a tighter scale_tolerance in its YAML.
inline constexpr double kDefaultScaleTolerance = 0.02;

// PCC decides a pass only from this many elements on. It absorbs an offset
// and a scale, two of an output's n degrees of freedom: 2 elements always
// correlate +-1 (a 2-class probability [0.657, 0.343] against a golden
// [0.69, 0.31] has PCC 1) and a few leave too little to decide. A smaller
// output is judged by allclose (allclose_rtol, allclose_atol) unless the
// config asserts atol or allclose itself; its PCC is still computed and
// recorded, but left out of the verdict's min_pcc.
inline constexpr int64_t kMinPccElements = 8;

struct ComparisonConfig {
  bool assert_pcc = true;
  double required_pcc = kDefaultRequiredPcc;
  bool assert_atol = false;
  double required_atol = 0.16;
  bool assert_allclose = false;
  double allclose_rtol = 1e-2;
  double allclose_atol = 1e-2;
  bool assert_scale = true;
  double scale_tolerance = kDefaultScaleTolerance;
};

struct OutputMetrics {
  std::string name;
  double pcc = 0.0;
  double atol = 0.0;    // max |device - golden|
  double rel_l2 = 0.0;  // ||device - golden|| / ||golden||  (0 when both are 0)
  double norm_ratio = 1.0;  // ||device|| / ||golden||
  double golden_l2 = 0.0;   // ||golden||
  double error_l2 = 0.0;    // ||device - golden||
  double golden_max_abs = 0.0;  // max |golden| (when finite)
  bool allclose = false;
  bool equal = false;
  bool finite = true;
  bool passed = false;
  std::string failure;  // empty when passed
  // The checks that judged the output, "+"-joined in this order: pcc, atol,
  // allclose, scale ("allclose+scale" on an output under kMinPccElements);
  // "shape" or "finite" when those failed first, "empty" for 0 elements.
  std::string decided_by;
  bool few_elements = false;  // finite, under kMinPccElements: its PCC is recorded, not judged
};

struct Verdict {
  bool passed = true;
  std::vector<OutputMetrics> outputs;
  double min_pcc = 1.0;  // over the outputs but those with few_elements; NaN when every output has them
  double max_atol = 0.0;
  double max_rel_l2 = 0.0;
  std::string message;  // first failing output's reason(s); empty when passed
};

// Metrics of one output (pure numbers; `passed` from `config`'s enabled checks).
OutputMetrics compare_tensors(const std::string& name, const Tensor& device, const Tensor& golden,
                              const ComparisonConfig& config);

// Largest |element| (NaN if any element is NaN, so no check can pass on it).
double max_abs(const Tensor& t);

// ||t||_2 in f64 (f32 read in place, in lanes and parallel chunks; other
// floating dtypes widened to f32 first); inf or NaN when an element is.
double l2_norm(const Tensor& t);

// The largest elementwise error of a bf16 result in units of bf16's last
// place (ulp): max |device - reference| / ulp(max(|reference|, floor)), where
// ulp(v) = 2^(floor(log2 v) - 7) (bf16 keeps 8 significant bits) and floor =
// max|reference| * 2^-16, so values tiny beside the tensor's largest (where an
// f32 formula cancels, e.g. gelu far below 0) are held to the tensor's scale,
// not their own. An elementwise kernel that computes in f32 and rounds to
// nearest even is within 0.5 ulp; a wrong formula that PCC and the norm ratio
// cannot see (tanh-GELU for erf-GELU: 10% off at x = -3) is many ulp off.
// Both tensors f32 of one shape; 0 for empty tensors, inf when either side is
// not finite.
double max_bf16_ulp_error(const Tensor& device, const Tensor& reference);

// The error of a bf16 result in ulp as above, and how it is spread: over the
// elements at or above the floor (their own ulp), the mean |error| and the
// mean error toward each element's magnitude ((device - reference) *
// sign(reference): negative when the device's values are too small). A
// kernel that computes in f32 and rounds to nearest even once has a mean
// |error| of at most 0.25 ulp and no bias beyond sampling noise (about 0.29 /
// sqrt(counted) ulp); an approximation well inside half an ulp per element
// (a fast rsqrt 0.1% low) shows in the bias, and noise added to every
// element (an approximate exp) in the mean |error|.
struct Bf16UlpStats {
  double max = 0.0;       // max_bf16_ulp_error
  double mean_abs = 0.0;  // inf when either side is not finite
  double bias = 0.0;
  int64_t counted = 0;    // elements the means are over
};
Bf16UlpStats bf16_ulp_stats(const Tensor& device, const Tensor& reference);
// The same for a pair compare_tensors has just compared (`compared`): its
// finiteness and largest |reference| spare a pass over both.
Bf16UlpStats bf16_ulp_stats(const Tensor& device, const Tensor& reference, const OutputMetrics& compared);

// Every output compared, the case verdict and its summary figures.
Verdict compare_outputs(const std::vector<std::string>& names, const std::vector<Tensor>& device,
                        const std::vector<Tensor>& golden, const ComparisonConfig& config);

}  // namespace meshtest::comparators
