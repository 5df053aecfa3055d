// Training comparison: forward output, gradients (vanishing ones by
// magnitude, the others by the case's checks plus their L2 norm), gradient
// sets, updated weights, updated buffers (by their update).
#include "comparators/training_comparison.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace meshtest::comparators {

namespace {

// "a, b, c" of the names in `of` but not in `minus`.
std::string names_missing(const std::vector<std::string>& of, const std::vector<std::string>& minus) {
  const std::set<std::string> other(minus.begin(), minus.end());
  std::string out;
  for (const std::string& n : of) {
    if (other.count(n) == 0) out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

// The comparator's "output 'NAME': reasons" as "gradient of NAME: reasons"
// (`what` "gradient") or "updated weight of NAME: reasons".
std::string parameter_failure(const std::string& what, const std::string& name, const std::string& failure) {
  const std::string prefix = "output '" + name + "': ";
  return what + " of " + name + ": " + (failure.rfind(prefix, 0) == 0 ? failure.substr(prefix.size()) : failure);
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

TensorCheck check_of(const std::string& kind, const std::string& name, const OutputMetrics& m) {
  TensorCheck c;
  c.kind = kind;
  c.name = name;
  c.pcc = m.pcc;
  c.atol = m.atol;
  c.rel_l2 = m.rel_l2;
  c.norm_ratio = m.norm_ratio;
  c.decided_by = m.decided_by;
  return c;
}

// The device tensor of parameter `name` in `of` (gradients or updated
// weights, index for index with device.with_gradient), or null.
const Tensor* device_tensor(const TrainingTensors& device, const std::vector<Tensor>& of, const std::string& name) {
  const auto at = std::find(device.with_gradient.begin(), device.with_gradient.end(), name);
  const auto j = static_cast<size_t>(at - device.with_gradient.begin());
  return at == device.with_gradient.end() || j >= of.size() ? nullptr : &of[j];
}

// after - before, elementwise in f32 (one shape).
Tensor update_of(const Tensor& after, const Tensor& before) {
  const std::vector<float> a = after.to_f32_vector();
  const std::vector<float> b = before.to_f32_vector();
  std::vector<float> d(a.size());
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) d[k] = a[k] - b[k];
  return Tensor::from_f32(after.shape(), d);
}

}  // namespace

TrainingVerdict compare_training(const std::string& output, const TrainingTensors& golden,
                                 const TrainingTensors& device, const ComparisonConfig& config) {
  TrainingVerdict t;
  auto fail = [&t](std::string message, const char* pass) {
    if (!t.passed) return;
    t.passed = false;
    t.message = std::move(message);
    t.failed_pass = pass;
  };
  ComparisonConfig gradient_config = config;
  gradient_config.assert_scale = true;
  gradient_config.scale_tolerance = kGradientNormTolerance;
  ComparisonConfig buffer_config = config;
  buffer_config.scale_tolerance = std::max(config.scale_tolerance, kBufferUpdateScaleTolerance);
  auto compare = [&](const std::string& kind, const std::string& name, const Tensor& d, const Tensor& g) {
    const OutputMetrics m = compare_tensors(
        name, d, g, kind == "gradient" ? gradient_config : kind == "buffer_update" ? buffer_config : config);
    const std::string& failure = m.failure;
    TensorCheck c = check_of(kind, name, m);
    c.passed = m.passed;
    t.checks.push_back(c);
    if (!m.few_elements) t.min_pcc = std::min(t.min_pcc, m.pcc);
    t.max_atol = std::max(t.max_atol, m.atol);
    t.max_rel_l2 = std::max(t.max_rel_l2, m.rel_l2);
    if (!c.passed) {
      if (kind == "output")
        fail(failure, "FORWARD");
      else if (kind == "gradient")
        fail(parameter_failure("gradient", name, failure), "BACKWARD");
      else if (kind == "buffer_update")
        fail(parameter_failure("running update", name, failure), "FORWARD");
      else
        fail(parameter_failure("updated weight", name, failure), "BACKWARD");
    }
  };

  compare("output", output, device.forward, golden.forward);
  // Which parameters get a gradient is part of the result: both sides must agree.
  const std::string only_golden = names_missing(golden.with_gradient, device.with_gradient);
  const std::string only_device = names_missing(device.with_gradient, golden.with_gradient);
  if (!only_golden.empty() || !only_device.empty()) {
    std::string message = "parameters without a gradient differ:";
    if (!only_golden.empty()) message += " only the device gives none to " + only_golden + ";";
    if (!only_device.empty()) message += " only the golden gives none to " + only_device + ";";
    message.pop_back();
    fail(message, "BACKWARD");
  }
  // A gradient that is zero in exact arithmetic (a key bias before a softmax
  // over keys, ...) is rounding noise on both sides, whose PCC means nothing:
  // it must stay negligible on the device instead.
  double scale = 0.0;  // the largest golden gradient element of the model
  std::vector<double> golden_max(golden.gradients.size());
  for (size_t i = 0; i < golden.gradients.size(); ++i) {
    golden_max[i] = max_abs(golden.gradients[i]);
    if (!std::isnan(golden_max[i])) scale = std::max(scale, golden_max[i]);
  }
  for (size_t i = 0; i < golden.with_gradient.size(); ++i) {
    const std::string& name = golden.with_gradient[i];
    const Tensor* d = device_tensor(device, device.gradients, name);
    if (d == nullptr) continue;
    if (!(golden_max[i] <= kVanishingGradient * scale) || scale == 0.0) {
      compare("gradient", name, *d, golden.gradients[i]);
      continue;
    }
    const double device_max = max_abs(*d);
    // The PCC is recorded, but not judged and left out of the case's minimum.
    TensorCheck c = check_of("gradient", name, compare_tensors(name, *d, golden.gradients[i], config));
    c.passed = device_max <= kVanishingGradientDevice * scale;
    c.decided_by = "magnitude";
    t.checks.push_back(c);
    if (!c.passed) {
      fail("gradient of " + name + ": zero in the golden (max |g| " + format_number(golden_max[i]) +
               ") but max |g| " + format_number(device_max) + " on the device > " +
               format_number(kVanishingGradientDevice) + " x the largest gradient element " + format_number(scale),
           "BACKWARD");
    }
  }
  // After an optimizer step: the weights, index for index with the golden's gradients.
  for (size_t i = 0; i < golden.updated.size(); ++i) {
    const std::string& name = golden.with_gradient[i];
    if (const Tensor* d = device_tensor(device, device.updated, name)) {
      compare("updated_weight", name, *d, golden.updated[i]);
    }
  }
  // Updated buffers, by their update (see the header).
  if (device.buffer_names != golden.buffer_names || device.buffers.size() != golden.buffers.size() ||
      golden.buffers_before.size() != golden.buffers.size()) {
    fail("updated buffers differ: the device returns " + std::to_string(device.buffers.size()) + ", the golden " +
             std::to_string(golden.buffers.size()),
         "FORWARD");
    return t;
  }
  for (size_t i = 0; i < golden.buffers.size(); ++i) {
    const Tensor& before = golden.buffers_before[i];
    if (device.buffers[i].shape() != before.shape() || golden.buffers[i].shape() != before.shape()) {
      compare("buffer_update", golden.buffer_names[i], device.buffers[i], golden.buffers[i]);  // names the shapes
      continue;
    }
    compare("buffer_update", golden.buffer_names[i], update_of(device.buffers[i], before),
            update_of(golden.buffers[i], before));
  }
  return t;
}

}  // namespace meshtest::comparators
