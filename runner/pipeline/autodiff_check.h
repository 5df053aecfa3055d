// The autodiff check of a training case (YAML `autodiff_check`, on unless
// false): the compiler's joint forward + backward graph (compiler/autodiff.h,
// the graph the device compiles) run on the CPU reference in f32, its
// gradients compared with the golden's, which come from the reference's own,
// independent backward (runtime/reference/reference_backward.h). Both sides
// are f32 on the host, so the device's bf16 noise is out of the picture and a
// VJP rule that is slightly wrong (the tanh form's derivative for exact GELU:
// at most 8.7e-4 off, far under bf16's rounding) stands out by orders of
// magnitude. A failure names the gradient and blames the compiler's backward
// graph, not the device.
#pragma once

#include <string>

#include "comparators/training_comparison.h"
#include "compiler/autodiff.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

// The largest relative L2 error ||autodiff - golden|| / ||golden|| a gradient
// may have, unless YAML `autodiff_rel_l2` says. The two f32 backward passes
// differ only in their order of operations: the worst honest difference over
// the expected-passing training cases (single device, data and tensor
// parallel) is 1.33e-6; exact GELU differentiated with the tanh form's rule
// (the vjp_gelu_tanh_form mutant) gives 1.2e-4 (bert_tiny) to 6.4e-4
// (bert_base). 1e-5 sits 7.5x above the first and 12x below the second
// (docs/how-to/training.md).
inline constexpr double kDefaultAutodiffRelL2 = 1e-5;

struct AutodiffCheck {
  bool passed = true;
  double worst_rel_l2 = 0.0;
  std::string worst;    // the parameter whose gradient is furthest off
  std::string message;  // empty when passed
};

// Runs `training.graph` on the reference with `feeds` (the forward inputs and
// the seed gradient) and compares every gradient with `golden`'s by relative
// L2; a vanishing golden gradient (largest element at most
// comparators::kVanishingGradient of the model's largest) is held to the
// model's scale instead (comparators::kVanishingGradientDevice), as the
// device's gradients are.
// `hook`: what the golden's forward followed (device_routing.h), followed
// here too, so both backward passes differentiate the same choices.
AutodiffCheck check_autodiff_graph(const compiler::TrainingGraph& training, const runtime::NamedTensors& feeds,
                                   const comparators::TrainingTensors& golden, const runtime::ReferenceOpHook& hook,
                                   double max_rel_l2);

}  // namespace meshtest::runner
