// The autodiff check: the compiler's training graph on the CPU reference,
// its gradients against the golden's independent backward, by relative L2.
#include "runner/pipeline/autodiff_check.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/error.h"

namespace meshtest::runner {

AutodiffCheck check_autodiff_graph(const compiler::TrainingGraph& training, const runtime::NamedTensors& feeds,
                                   const comparators::TrainingTensors& golden, const runtime::ReferenceOpHook& hook,
                                   double max_rel_l2) {
  const std::vector<Tensor> outputs = runtime::run_reference(training.graph, feeds, hook);
  std::map<std::string, const Tensor*> autodiff;
  for (size_t i = 0; i < training.with_gradient.size(); ++i) autodiff[training.with_gradient[i]] = &outputs.at(1 + i);
  double scale = 0.0;  // the model's largest golden gradient element
  for (const Tensor& g : golden.gradients) scale = std::max(scale, comparators::max_abs(g));
  AutodiffCheck check;
  for (size_t i = 0; i < golden.with_gradient.size(); ++i) {
    const std::string& name = golden.with_gradient[i];
    const auto it = autodiff.find(name);
    if (it == autodiff.end()) {
      check.passed = false;
      check.message = "autodiff check: the compiler's backward graph gives no gradient for " + name +
                      ", the reference's backward does";
      return check;
    }
    const Tensor& g = golden.gradients[i];
    if (it->second->shape() != g.shape()) {
      throw RuntimeError("autodiff check: gradient of " + name + " is " + shape_to_string(it->second->shape()) +
                         " in the compiler's backward graph, " + shape_to_string(g.shape()) + " in the golden");
    }
    if (comparators::max_abs(g) <= comparators::kVanishingGradient * scale) {
      // Zero in exact arithmetic (an attention key bias): what is left is f32
      // rounding, so it is held to the model's scale, as comparators do.
      if (!(comparators::max_abs(*it->second) <= comparators::kVanishingGradientDevice * scale)) {
        check.passed = false;
        check.message = "autodiff check: gradient of " + name + " vanishes in the reference's backward, not in the "
                        "compiler's backward graph run on the CPU reference; a VJP rule is wrong";
        return check;
      }
      continue;
    }
    const double rel = comparators::compare_tensors(name, *it->second, g, {}).rel_l2;
    if (!(rel <= check.worst_rel_l2)) {
      check.worst_rel_l2 = rel;
      check.worst = name;
    }
  }
  if (!(check.worst_rel_l2 <= max_rel_l2)) {
    char figures[96];
    std::snprintf(figures, sizeof figures, "rel L2 %.3g (allowed %.3g)", check.worst_rel_l2, max_rel_l2);
    check.passed = false;
    check.message = "autodiff check: gradient of " + check.worst +
                    " from the compiler's backward graph run on the CPU reference (f32) differs from the "
                    "reference's own backward: " + figures + "; a VJP rule is wrong (the device is not involved)";
  }
  return check;
}

}  // namespace meshtest::runner
