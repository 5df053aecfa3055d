// The comparison policy of a training case: the forward output, every
// parameter gradient and, after an optimizer step, every updated weight,
// each with the case's checks (metrics.h), plus the gradient policy below;
// the sets of parameters with a gradient must agree on both sides. Updated
// buffers (a training-mode batch norm's running statistics) are forward
// outputs, never gradients: each is judged by its update, below.
#pragma once

#include <string>
#include <vector>

#include "comparators/metrics.h"
#include "core/tensor.h"

namespace meshtest::comparators {

// One side (golden or device) of a training case.
struct TrainingTensors {
  Tensor forward;                          // the differentiated output
  std::vector<std::string> with_gradient;  // parameter names ...
  std::vector<Tensor> gradients;           // ... and their gradients, index for index
  std::vector<Tensor> updated;             // after an optimizer step, as `gradients` (empty: no step)
  std::vector<std::string> buffer_names;   // updated buffers (running statistics), by buffer name ...
  std::vector<Tensor> buffers;             // ... their values after the step, index for index
  std::vector<Tensor> buffers_before;      // golden only: their values before it (the weights)
};

// One compared tensor.
struct TensorCheck {
  std::string kind;  // "output", "gradient" (named by its parameter), "updated_weight" (ditto),
                     // "buffer_update" (named by its buffer)
  std::string name;
  double pcc = 0.0;
  double atol = 0.0;
  double rel_l2 = 0.0;
  double norm_ratio = 1.0;  // ||device|| / ||golden||
  bool passed = false;
  std::string decided_by;  // OutputMetrics::decided_by, or "magnitude" for a vanishing gradient
};

struct TrainingVerdict {
  bool passed = true;
  // The first failure: "output 'logits': PCC ..." or "gradient of
  // layer1.0.conv1.weight: PCC 0.41 < required 0.99", or the parameters whose
  // gradient exists on one side only.
  std::string message;
  std::string failed_pass;  // "FORWARD" (the forward output or an updated buffer failed),
                            // "BACKWARD" (a gradient or an updated weight did), "" (passed)
  // The forward output, then one per parameter in the golden's order, then
  // with an optimizer step one per updated weight, then one per updated buffer.
  std::vector<TensorCheck> checks;
  double min_pcc = 1.0;  // over the output and the gradients judged by PCC (not vanishing ones, nor
                         // ones under kMinPccElements)
  double max_atol = 0.0;
  double max_rel_l2 = 0.0;
};

// A golden gradient whose largest |element| is at most kVanishingGradient x
// the largest gradient element of the model is zero in exact arithmetic (what
// is left is f32 rounding). Its PCC against the device's bf16 rounding noise
// means nothing, so it is not judged by PCC: the device's largest |element|
// must be at most kVanishingGradientDevice x that same scale. (bert_base:
// key biases 1e-10 of the scale in the golden, 6e-6 on the device.)
inline constexpr double kVanishingGradient = 1e-6;
inline constexpr double kVanishingGradientDevice = 1e-4;

// PCC cannot see a gradient that is off by a factor (a VJP rule that scales),
// so a gradient judged by PCC must also have an L2 norm within this fraction
// of the golden's. bf16 noise moves the norm by a few percent at most (noise
// with PCC 0.97 adds about 3%); a factor of 1.5 moves it by 50%.
inline constexpr double kGradientNormTolerance = 0.2;

// An updated buffer is judged by its update, after - before (before: the
// buffer's value, the same on both sides), with the case's checks as an
// output: momentum keeps 90% of a running statistic, so the new value itself
// correlates with the golden's even when the batch statistic folded into it
// is wrong or missing; its update is 10% of (batch statistic - running) and
// is not. Sides must name the same buffers.
// The update's L2 norm must be within this fraction of the golden's. The
// device stores the new statistic in bf16, rounded by up to 0.4% of itself,
// which is 4% of a 10% update: element by element that is noise PCC absorbs,
// but it moves the update's norm by a few percent (2.5% on a running_var in
// tests/runner/training_batch_norm_test.cpp), past the outputs' 2%. A wrong
// momentum (0.9 for 0.1: 9x) or a missing update (0x) stays far outside 10%.
inline constexpr double kBufferUpdateScaleTolerance = 0.1;

// Compares the device's training results with the golden's (`output`: the
// differentiated output's name) with `config`'s checks and the policy above.
TrainingVerdict compare_training(const std::string& output, const TrainingTensors& golden,
                                 const TrainingTensors& device, const ComparisonConfig& config);

}  // namespace meshtest::comparators
