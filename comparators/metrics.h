// Device-vs-golden comparison: PCC, max |a-b| (atol), allclose, equality and
// relative L2, all computed in f64 over every element, plus the verdict of a
// case from the checks its config enables.
//
// Edge cases are defined, not accidental:
//  - shapes differ: fails with both shapes named;
//  - NaN or inf in either tensor: fails with the counts per side (a NaN never
//    hides behind a minimum or a sum);
//  - empty tensors (both): equal, PCC 1;
//  - allclose(rtol, atol of the PCC short-cut) holds: PCC 1 (near-identical
//    tensors, including constant and single-element ones);
//  - otherwise, when either side has zero variance, PCC is 1 if the tensors
//    are equal and 0 if not (Pearson correlation is undefined there).
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace meshtest::comparators {

// The PCC a case requires unless its YAML says (required_pcc).
inline constexpr double kDefaultRequiredPcc = 0.99;

struct ComparisonConfig {
  bool assert_pcc = true;
  double required_pcc = kDefaultRequiredPcc;
  bool assert_atol = false;
  double required_atol = 0.16;
  bool assert_allclose = false;
  double allclose_rtol = 1e-2;
  double allclose_atol = 1e-2;
  // rtol/atol of the allclose short-cut inside PCC.
  double pcc_shortcut_rtol = 1e-2;
  double pcc_shortcut_atol = 1e-2;
};

struct OutputMetrics {
  std::string name;
  double pcc = 0.0;
  double atol = 0.0;    // max |device - golden|
  double rel_l2 = 0.0;  // ||device - golden|| / ||golden||  (0 when both are 0)
  bool allclose = false;
  bool equal = false;
  bool finite = true;
  bool passed = false;
  std::string failure;  // empty when passed
};

struct Verdict {
  bool passed = true;
  std::vector<OutputMetrics> outputs;
  double min_pcc = 1.0;
  double max_atol = 0.0;
  double max_rel_l2 = 0.0;
  std::string message;  // first failing output's reason(s); empty when passed
};

// Metrics of one output (pure numbers; `passed` from `config`'s enabled checks).
OutputMetrics compare_tensors(const std::string& name, const Tensor& device, const Tensor& golden,
                              const ComparisonConfig& config);

// Every output compared, the case verdict and its summary figures.
Verdict compare_outputs(const std::vector<std::string>& names, const std::vector<Tensor>& device,
                        const std::vector<Tensor>& golden, const ComparisonConfig& config);

}  // namespace meshtest::comparators
