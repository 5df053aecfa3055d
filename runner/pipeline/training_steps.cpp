// Training steps: joint forward + backward graph on the device, reference
// forward + backward as the golden, the comparators' training policy.
#include "runner/pipeline/training_steps.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "comparators/training_comparison.h"
#include "runner/pipeline/autodiff_check.h"
#include "runner/pipeline/device_routing.h"
#include "compiler/autodiff.h"
#include "compiler/sharding.h"
#include "core/error.h"
#include "core/rng.h"
#include "runtime/reference/reference_backward.h"

namespace meshtest::runner {

namespace {

// One seed for every training case: "drawn from a fixed seed".
const uint64_t kSeedGradientSeed = hash_seed("meshtest/training/seed_gradient");

bool is_updated_buffer(const GraphOutput& o) { return o.name.rfind(sdk::kUpdatedBufferPrefix, 0) == 0; }

// The output the loader's training spec names (empty: the first that is not
// an updated buffer).
const GraphOutput& training_output(const Graph& graph, const std::string& name) {
  if (graph.outputs.empty()) throw Error("the model has no outputs to differentiate");
  if (name.empty()) {
    for (const GraphOutput& o : graph.outputs) {
      if (!is_updated_buffer(o)) return o;
    }
    throw Error("the model has only updated buffers (" + std::string(sdk::kUpdatedBufferPrefix) +
                "...) as outputs: nothing to differentiate");
  }
  std::string known;
  for (const GraphOutput& o : graph.outputs) {
    if (o.name == name) return o;
    known += (known.empty() ? "" : ", ") + o.name;
  }
  throw Error("the training spec names output '" + name + "', the model has: " + known);
}

// The forward case's sharding request plus the upstream gradient's split.
// Data parallel: split with the batch, like the inputs (each chip holds its
// own samples' gradient). Tensor parallel and FSDP: the split the forward
// graph's differentiated output gets (e.g. a vocabulary-split logits, or the
// batch), so backward starts where forward ended without gathering; and every
// weight's gradient is asked to leave in its weight's split (under FSDP a
// partial sum over the batch: one reduce_scatter per weight).
std::shared_ptr<const ShardingRequest> training_sharding(
    Parallelism parallelism, std::shared_ptr<const ShardingRequest> forward, const Graph& graph,
    const std::string& output, const runtime::ArchProfile& arch) {
  if (forward == nullptr) return forward;
  auto request = std::make_shared<ShardingRequest>(*forward);
  NamedPartitionSpec& seed = request->specs[compiler::kSeedGradientInput];
  if (parallelism == Parallelism::TensorParallel || parallelism == Parallelism::Fsdp) {
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

class TrainingSteps : public RunModeSteps {
 public:
  TrainingSteps(const TestCase& test_case, const PipelineOptions& options) : case_(test_case), options_(options) {}

  std::string execution_pass() const override { return case_.expectation.execution_pass.value_or(""); }
  sdk::LoadOptions load_options() const override { return training_load_options(case_.expectation); }
  void model_loaded(sdk::Model& model) override {
    output_ = training_output(model.graph, case_.loader->loader->training(case_.info.variant).output).name;
    buffer_outputs_.clear();
    for (const GraphOutput& o : model.graph.outputs) {
      if (is_updated_buffer(o)) buffer_outputs_.push_back(o.name);
    }
    if (!options_.compile.compile_only && has_device_routing(model.graph)) routing_ = std::make_unique<DeviceRouting>();
  }
  // A model that routes: after executing, its forward following the device's
  // checked top-k choices (device_routing.h), and so does the autodiff check.
  GoldenOrder golden_order() const override {
    return routing_ ? GoldenOrder::AfterExecute : GoldenOrder::BeforeExecute;
  }
  backend::OpObserver device_op_observer() override {
    if (!routing_) return {};
    return [routing = routing_.get()](const backend::OpExecution& e) { routing->observe(e); };
  }
  void device_ops_unobservable() override { routing_.reset(); }

  const Graph& device_graph(const LoadedCase& loaded) override {
    training_ = compiler::build_training_graph(loaded.model.graph, output_, buffer_outputs_);
    require_no_buffer_gradient(training_);
    if (options_.sgd_learning_rate) compiler::append_sgd_step(training_, *options_.sgd_learning_rate);
    return training_.graph;
  }
  std::shared_ptr<const ShardingRequest> device_sharding(const LoadedCase& loaded) override {
    return training_sharding(case_.parallelism, loaded.sharding, loaded.model.graph, output_, options_.arch);
  }

  // The seed gradient, drawn once the model is laid out for the strategy (the
  // golden of a model that routes runs after the device, which is fed it).
  // Drawn at the global output shape: under data parallel every chip gets a
  // different slice of it, so a gradient taken from one chip only cannot pass.
  void inputs_prepared(LoadedCase& loaded) override {
    seed_ = training_seed_gradient(loaded.model.graph.type(training_output(loaded.model.graph, output_).value).shape);
  }

  void run_golden(LoadedCase& loaded) override {
    // The device loads its weights from the training graph: the same data, or
    // the same deterministic initializers when lazy.
    loaded.model.graph.materialize_weights();
    const runtime::ReferenceTraining golden = runtime::run_reference_training(
        loaded.model.graph, loaded.inputs, output_, seed_,
        routing_ ? routing_->golden_hook(loaded.model.graph) : runtime::ReferenceOpHook{}, buffer_outputs_);
    golden_.forward = golden.forward;
    golden_.with_gradient = golden.with_gradient;
    golden_.gradients = golden.gradients;
    golden_.buffer_names = buffer_names();
    golden_.buffers = golden.kept;
    for (const std::string& name : golden_.buffer_names) {
      const Param* p = loaded.model.graph.find_param(name);
      if (p == nullptr) throw Error("updated buffer '" + name + "' names no weight of the model");
      golden_.buffers_before.push_back(materialize(*p, loaded.model.graph.type(p->value)).to(DType::F32));
    }
    if (options_.sgd_learning_rate) {
      golden_.updated = runtime::reference_sgd_step(loaded.model.graph, golden, *options_.sgd_learning_rate);
    }
    if (case_.expectation.autodiff_check.value_or(true)) {
      autodiff_ = check_autodiff_graph(training_, device_inputs(loaded), golden_,
                                       routing_ ? routing_->golden_hook(training_.graph, false) : runtime::ReferenceOpHook{},
                                       case_.expectation.autodiff_rel_l2.value_or(kDefaultAutodiffRelL2));
    }
  }

  std::map<std::string, Tensor> device_inputs(const LoadedCase& loaded) const override {
    sdk::Inputs feeds = loaded.inputs;
    feeds[compiler::kSeedGradientInput] = seed_;
    return feeds;
  }

  void check_device_outputs(const std::vector<Tensor>& outputs) const override {
    const size_t expected = 1 + per_weight() * training_.with_gradient.size() + training_.kept_outputs.size();
    if (outputs.size() != expected) {
      throw RuntimeError("the training program returned " + std::to_string(outputs.size()) + " outputs, expected " +
                         std::to_string(expected) + " (the output and one per gradient" +
                         (per_weight() == 2 ? " and updated weight" : "") + " and updated buffer)");
    }
  }

  CaseVerdict compare(const LoadedCase&, const std::vector<Tensor>& outputs,
                      const comparators::ComparisonConfig& config) override {
    const comparators::TrainingVerdict t =
        comparators::compare_training(output_, golden_, device_tensors(outputs), config);
    CaseVerdict v = summary_of(t);
    v.failed_pass = t.failed_pass;
    if (!autodiff_.passed) {  // the compiler's backward graph is wrong whatever the device did
      v.passed = false;
      v.failed_pass = "BACKWARD";
      v.message = autodiff_.message + (t.passed ? "" : "; " + t.message);
    }
    for (const comparators::TensorCheck& c : t.checks) {
      v.outputs.push_back({c.name, c.pcc, c.atol, c.rel_l2, c.passed, c.kind, c.norm_ratio, c.decided_by});
    }
    if (routing_) add_routing(*routing_, config, v);
    return v;
  }

  SavedTensors tensors_to_save(const LoadedCase&, const std::vector<Tensor>& device) const override {
    SavedTensors files;
    if (golden_.forward.defined()) add_tensor_files("golden", golden_, files);
    if (!device.empty()) add_tensor_files("device", device_tensors(device), files);
    return files;
  }

 private:
  // The device program's outputs (checked by check_device_outputs) split as
  // the comparators take them.
  comparators::TrainingTensors device_tensors(const std::vector<Tensor>& outputs) const {
    const auto n = static_cast<std::ptrdiff_t>(training_.with_gradient.size());
    comparators::TrainingTensors device;
    device.forward = outputs.front();
    device.with_gradient = training_.with_gradient;
    const auto kept = static_cast<std::ptrdiff_t>(training_.kept_outputs.size());
    device.gradients.assign(outputs.begin() + 1, outputs.begin() + 1 + n);
    device.updated.assign(outputs.begin() + 1 + n, outputs.end() - kept);
    device.buffer_names = buffer_names();
    device.buffers.assign(outputs.end() - kept, outputs.end());
    return device;
  }

  // The buffers the updated-buffer outputs update (their names less the prefix).
  std::vector<std::string> buffer_names() const {
    std::vector<std::string> names;
    for (const std::string& o : buffer_outputs_) names.push_back(o.substr(std::string(sdk::kUpdatedBufferPrefix).size()));
    return names;
  }

  // Running statistics are buffers: the training graph must give them no
  // gradient (a loader whose updated buffer feeds the trained output would).
  void require_no_buffer_gradient(const compiler::TrainingGraph& training) const {
    for (const std::string& buffer : buffer_names()) {
      if (std::find(training.with_gradient.begin(), training.with_gradient.end(), buffer) != training.with_gradient.end()) {
        throw CompileError("buffer '" + buffer + "' (updated as output " + sdk::kUpdatedBufferPrefix + buffer +
                           ") receives a gradient: a buffer is state, not a parameter");
      }
    }
  }

  // <side>.safetensors (the output), <side>_gradients and <side>_updated
  // (by parameter name; the last empty without an optimizer step).
  void add_tensor_files(const std::string& side, const comparators::TrainingTensors& t, SavedTensors& files) const {
    files[side] = {{output_, t.forward}};
    files[side + "_gradients"] = named_tensors(t.with_gradient, t.gradients);
    files[side + "_updated"] = named_tensors(t.with_gradient, t.updated);
    if (!t.buffer_names.empty()) files[side + "_buffers"] = named_tensors(t.buffer_names, t.buffers);
  }

  size_t per_weight() const { return options_.sgd_learning_rate ? 2 : 1; }  // gradient (and updated weight)

  const TestCase& case_;
  const PipelineOptions& options_;
  std::string output_;  // the differentiated output
  std::vector<std::string> buffer_outputs_;  // the model's updated-buffer outputs (kept by the training graph)
  compiler::TrainingGraph training_;
  Tensor seed_;
  comparators::TrainingTensors golden_;
  AutodiffCheck autodiff_;
  std::unique_ptr<DeviceRouting> routing_;  // a model with topk_mask ops (model_loaded)
};

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
  options.training = true;
  return options;
}

Tensor training_seed_gradient(const Shape& output_shape) { return random_normal(output_shape, kSeedGradientSeed); }

std::unique_ptr<RunModeSteps> training_steps(const TestCase& test_case, const PipelineOptions& options) {
  return std::make_unique<TrainingSteps>(test_case, options);
}

}  // namespace meshtest::runner
