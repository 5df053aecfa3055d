// Training cases: golden (reference forward + backward) vs device (the
// compiler's joint forward + backward graph), output and gradients compared.
#include "runner/pipeline/training_phase.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "compiler/autodiff.h"
#include "core/error.h"
#include "core/rng.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/parallel_setup.h"

namespace meshtest::runner {

namespace {

// One seed for every training case: "drawn from a fixed seed".
const uint64_t kSeedGradientSeed = hash_seed("meshtest/training/seed_gradient");

// The output the loader's training spec names (empty: the first).
const GraphOutput& training_output(const Graph& graph, const std::string& name) {
  if (graph.outputs.empty()) throw Error("the model has no outputs to differentiate");
  if (name.empty()) return graph.outputs.front();
  std::string known;
  for (const GraphOutput& o : graph.outputs) {
    if (o.name == name) return o;
    known += (known.empty() ? "" : ", ") + o.name;
  }
  throw Error("the training spec names output '" + name + "', the model has: " + known);
}

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

// Largest |element| (NaN if any element is NaN, so no check can pass on it).
double max_abs(const Tensor& t) {
  double m = 0.0;
  for (float v : t.to_f32_vector()) {
    if (std::isnan(v)) return NAN;
    m = std::max(m, static_cast<double>(std::fabs(v)));
  }
  return m;
}

double l2_norm(const Tensor& t) {
  double sum = 0.0;
  for (float v : t.to_f32_vector()) sum += static_cast<double>(v) * v;
  return std::sqrt(sum);
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The forward case's sharding request plus the upstream gradient's split.
// Data parallel: split with the batch, like the inputs (each chip holds its
// own samples' gradient). Tensor parallel: the split the forward graph's
// differentiated output gets (e.g. a vocabulary-split logits), so backward
// starts where forward ended without gathering; and every weight's gradient
// is asked to leave in its weight's split.
std::shared_ptr<const compiler::ShardingRequest> training_sharding(
    Parallelism parallelism, std::shared_ptr<const compiler::ShardingRequest> forward, const Graph& graph,
    const std::string& output, const runtime::ArchProfile& arch) {
  if (forward == nullptr) return forward;
  auto request = std::make_shared<compiler::ShardingRequest>(*forward);
  compiler::NamedPartitionSpec& seed = request->specs[compiler::kSeedGradientInput];
  if (parallelism == Parallelism::TensorParallel) {
    seed = compiler::output_partition_spec(graph, *forward, output);
    // Each weight's gradient leaves the chips in its weight's split.
    for (const auto& [name, spec] : forward->specs) {
      if (graph.find_param(name) != nullptr && graph.find_param(name)->kind == ParamKind::Weight) {
        request->output_specs[compiler::kGradientPrefix + name] = spec;
      }
    }
    return request;
  }
  const Shape& shape = graph.type(training_output(graph, output).value).shape;
  seed.assign(shape.size(), {});
  if (!shape.empty() && shape[0] % arch.chips == 0) seed[0] = request->mesh.axis_names;
  return request;
}

}  // namespace

double parse_optimizer_step(const std::string& text) {
  const std::string prefix = "sgd:";
  const std::string usage = "optimizer step '" + text + "': expected sgd:LR with a learning rate LR > 0, e.g. sgd:0.01";
  if (text.rfind(prefix, 0) != 0) throw ParseError(usage);
  const std::string number = text.substr(prefix.size());
  size_t used = 0;
  double lr = 0.0;
  try {
    lr = std::stod(number, &used);
  } catch (const std::exception&) {
    throw ParseError(usage);
  }
  if (used != number.size() || !(lr > 0.0) || !std::isfinite(lr)) throw ParseError(usage);
  return lr;
}

sdk::LoadOptions training_load_options(const config::TestEntry& entry) {
  sdk::LoadOptions options;
  options.batch_size = entry.batch_size.value_or(kDefaultTrainingBatchSize);
  options.seq_len = entry.seq_len;
  return options;
}

Tensor training_seed_gradient(const Shape& output_shape) { return random_normal(output_shape, kSeedGradientSeed); }

TrainingComparison compare_training(const runtime::ReferenceTraining& golden, const DeviceTraining& device,
                                    const comparators::ComparisonConfig& config,
                                    const std::vector<Tensor>& golden_updated) {
  TrainingComparison t;
  auto fail = [&t](std::string message, const char* pass) {
    if (!t.passed) return;
    t.passed = false;
    t.message = std::move(message);
    t.failed_pass = pass;
  };
  auto compare = [&](const std::string& kind, const std::string& name, const Tensor& d, const Tensor& g) {
    const comparators::OutputMetrics m = comparators::compare_tensors(name, d, g, config);
    std::string failure = m.failure;
    if (m.passed && kind == "gradient") {
      const double ratio = l2_norm(d) / l2_norm(g);
      if (!(std::fabs(ratio - 1.0) <= kGradientNormTolerance)) {
        failure = "L2 norm " + format_number(ratio) + "x the golden's (allowed 1 +- " +
                  format_number(kGradientNormTolerance) + "; PCC cannot see a scale error)";
      }
    }
    reports::OutputResult r;
    r.kind = kind;
    r.name = name;
    r.pcc = m.pcc;
    r.atol = m.atol;
    r.rel_l2 = m.rel_l2;
    r.passed = failure.empty();
    t.results.push_back(r);
    t.min_pcc = std::min(t.min_pcc, m.pcc);
    t.max_atol = std::max(t.max_atol, m.atol);
    t.max_rel_l2 = std::max(t.max_rel_l2, m.rel_l2);
    if (!r.passed) {
      if (kind == "output")
        fail(failure, "FORWARD");
      else if (kind == "gradient")
        fail(parameter_failure("gradient", name, failure), "BACKWARD");
      else
        fail(parameter_failure("updated weight", name, failure), "BACKWARD");
    }
  };

  compare("output", golden.output, device.forward, golden.forward);
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
    const auto at = std::find(device.with_gradient.begin(), device.with_gradient.end(), name);
    if (at == device.with_gradient.end()) continue;
    const Tensor& d = device.gradients.at(static_cast<size_t>(at - device.with_gradient.begin()));
    if (!(golden_max[i] <= kVanishingGradient * scale) || scale == 0.0) {
      compare("gradient", name, d, golden.gradients[i]);
      continue;
    }
    const comparators::OutputMetrics m = comparators::compare_tensors(name, d, golden.gradients[i], config);
    const double device_max = max_abs(d);
    reports::OutputResult r;
    r.kind = "gradient";
    r.name = name;
    r.pcc = m.pcc;  // recorded, but not judged and left out of the case's minimum
    r.atol = m.atol;
    r.rel_l2 = m.rel_l2;
    r.passed = device_max <= kVanishingGradientDevice * scale;
    t.results.push_back(r);
    if (!r.passed) {
      fail("gradient of " + name + ": zero in the golden (max |g| " + format_number(golden_max[i]) +
               ") but max |g| " + format_number(device_max) + " on the device > " +
               format_number(kVanishingGradientDevice) + " x the largest gradient element " + format_number(scale),
           "BACKWARD");
    }
  }
  // --optimizer-step: the weights after the step, index for index with the
  // golden's gradients.
  for (size_t i = 0; i < golden_updated.size(); ++i) {
    const std::string& name = golden.with_gradient[i];
    const auto at = std::find(device.with_gradient.begin(), device.with_gradient.end(), name);
    const size_t j = static_cast<size_t>(at - device.with_gradient.begin());
    if (at == device.with_gradient.end() || j >= device.updated.size()) continue;
    compare("updated_weight", name, device.updated[j], golden_updated[i]);
  }
  return t;
}

TrainingRun run_training_phases(const TestCase& c, const PipelineOptions& options,
                                const comparators::ComparisonConfig& comparison, const std::function<void(Phase)>& enter,
                                reports::CaseResult& record) {
  TrainingRun run;
  enter(Phase::LoadModel);
  const sdk::LoadOptions load_options = training_load_options(c.expectation);
  sdk::Model model;
  sdk::Inputs inputs;
  std::string output;
  ParallelPlan parallel;
  {
    PhaseClock clock(record.seconds.load);
    // Data parallel: the model at the enlarged batch, inputs repeated to it.
    model = c.loader->loader->load_model(c.info.variant, model_load_options(c, load_options, options.arch));
    output = training_output(model.graph, c.loader->loader->training(c.info.variant).output).name;
    enter(Phase::LoadInputs);
    inputs = c.loader->loader->load_inputs(c.info.variant, load_options);
    parallel = prepare_parallel(c, model, inputs, options.arch);
    if (!parallel.skip_reason.empty()) {
      run.skip_reason = parallel.skip_reason;
      return run;
    }
  }
  const Shape seed_shape = model.graph.type(training_output(model.graph, output).value).shape;

  // Compile before the golden (unlike inference): the joint graph is where a
  // model that fits for inference runs out of device memory, and that answer
  // costs no weights; the golden needs them all, in f32, with their gradients.
  enter(Phase::Compile);
  compiler::TrainingGraph training;
  CompiledCase compiled;
  {
    PhaseClock clock(record.seconds.compile);
    training = compiler::build_training_graph(model.graph, output);
    if (options.sgd_learning_rate) compiler::append_sgd_step(training, *options.sgd_learning_rate);
    CompileSettings settings = options.compile;
    if (!settings.optimization_level && options.optimization_level != 0) {
      settings.optimization_level = options.optimization_level;
    }
    const CompileTarget target{options.backend, options.chip, options.arch.chips,
                               training_sharding(c.parallelism, parallel.sharding, model.graph, output, options.arch), false};
    compiled = compile_case(c.id, c.expectation, training.graph, settings, target, record);
  }
  if (options.compile.compile_only) return run;

  enter(Phase::Golden);
  // Drawn at the global output shape: under data parallel every chip gets a
  // different slice of it, so a gradient taken from one chip only cannot pass.
  const Tensor seed = training_seed_gradient(seed_shape);
  runtime::ReferenceTraining golden;
  std::vector<Tensor> golden_updated;
  {
    PhaseClock clock(record.seconds.golden);
    // The device loads its weights from the training graph: the same data, or
    // the same deterministic initializers when lazy.
    model.graph.materialize_weights();
    golden = runtime::run_reference_training(model.graph, inputs, output, seed);
    if (options.sgd_learning_rate) {
      golden_updated = runtime::reference_sgd_step(model.graph, golden, *options.sgd_learning_rate);
    }
  }

  enter(Phase::Execute);
  std::vector<Tensor> outputs;
  {
    PhaseClock clock(record.seconds.execute);
    sdk::Inputs feeds = inputs;
    feeds[compiler::kSeedGradientInput] = seed;
    backend::MemoryStats stats;
    outputs = compiled.backend->execute(*compiled.executable, feeds, stats);
    record_execution_stats(stats, options.chip, record);
  }
  const size_t per_weight = options.sgd_learning_rate ? 2 : 1;  // gradient (and updated weight)
  const size_t n = training.with_gradient.size();
  if (outputs.size() != 1 + per_weight * n) {
    throw RuntimeError("the training program returned " + std::to_string(outputs.size()) + " outputs, expected " +
                       std::to_string(1 + per_weight * n) + " (the output and one per gradient" +
                       (per_weight == 2 ? " and updated weight)" : ")"));
  }

  enter(Phase::Compare);
  PhaseClock clock(record.seconds.compare);
  DeviceTraining device;
  device.forward = outputs.front();
  device.with_gradient = training.with_gradient;
  device.gradients.assign(outputs.begin() + 1, outputs.begin() + 1 + static_cast<std::ptrdiff_t>(n));
  device.updated.assign(outputs.begin() + 1 + static_cast<std::ptrdiff_t>(n), outputs.end());
  device.without_gradient = training.without_gradient;
  run.comparison = compare_training(golden, device, comparison, golden_updated);
  return run;
}

}  // namespace meshtest::runner
