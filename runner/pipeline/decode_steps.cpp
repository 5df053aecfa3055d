// Decode steps: the prefill's cache fed to the decode step on the CPU golden
// and on the device (decode_steps.h).
#include "runner/pipeline/decode_steps.h"

#include <set>

#include "compiler/sharding.h"
#include "core/error.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/device_routing.h"
#include "runner/pipeline/inference_steps.h"
#include "runner/pipeline/parallel_setup.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string past_for(const std::string& present) {
  return sdk::kPastKeyValuesPrefix + present.substr(std::string(sdk::kPresentPrefix).size());
}

std::map<std::string, Tensor> with_cache(std::map<std::string, Tensor> inputs, const sdk::Inputs& cache) {
  for (const auto& [name, t] : cache) inputs[name] = t;
  return inputs;
}

class DecodeSteps : public InferenceSteps {
 public:
  DecodeSteps(const TestCase& c, const PipelineOptions& options, const CasePlan& plan)
      : InferenceSteps(c, options.compile.compile_only, WeightStreaming::Off), case_(c), options_(options), plan_(plan) {}

  void inputs_prepared(LoadedCase& loaded) override {
    sdk::LoadOptions prefill_options = load_options_;
    prefill_options.phase = sdk::LmPhase::Prefill;
    prefill_.model = case_.loader->loader->load_model(case_.info.variant,
                                                      model_load_options(plan_.layout, prefill_options));
    if (!compile_only_) prefill_.model.graph.materialize_weights();
    prefill_.inputs = case_.loader->loader->load_inputs(case_.info.variant, prefill_options);
    ParallelPlan plan = prepare_parallel(plan_.layout, prefill_.model, prefill_.inputs);
    prefill_.sharding = std::move(plan.sharding);
    check_cache_inputs(loaded.model.graph);
    if (!compile_only_ && has_device_routing(prefill_.model.graph)) {
      prefill_routing_ = std::make_unique<DeviceRouting>("prefill ");
    }
    if (loaded.sharding) loaded.sharding = decode_sharding(*loaded.sharding, prefill_.model.graph, *prefill_.sharding);
  }

  // A model that routes: the golden's prefill follows the device's prefill
  // routes and its decode step the device's decode routes (device_routing.h).
  // Its golden runs the prefill too, on other inputs than the device's.
  bool golden_is_device_reference() const override { return false; }
  void run_golden(LoadedCase& loaded) override {
    const Graph& prefill = prefill_.model.graph;
    golden_cache_ = cache_inputs(prefill, prefill_routing_ ? runtime::run_reference(prefill, prefill_.inputs,
                                                                                   prefill_routing_->golden_hook(prefill))
                                                           : runtime::run_reference(prefill, prefill_.inputs));
    const sdk::Inputs decode_inputs = with_cache(loaded.inputs, golden_cache_);
    golden_ = routing_ ? runtime::run_reference(loaded.model.graph, decode_inputs, routing_->golden_hook(loaded.model.graph))
                       : runtime::run_reference(loaded.model.graph, decode_inputs);
  }

  CaseVerdict compare(const LoadedCase& loaded, const std::vector<Tensor>& device,
                      const comparators::ComparisonConfig& config) override {
    CaseVerdict v = InferenceSteps::compare(loaded, device, config);
    if (prefill_routing_) add_routing(*prefill_routing_, config, v);
    return v;
  }

  void before_execute() override {
    CompileTarget target = plan_.target;
    target.sharding = prefill_.sharding;
    CompiledCase prefill = compile_graph(prefill_.model.graph, options_.compile, target);
    if (prefill_routing_ &&
        !prefill.backend->observe_ops(*prefill.executable, [routing = prefill_routing_.get()](
                                                               const backend::OpExecution& e) { routing->observe(e); })) {
      prefill_routing_.reset();  // the backend cannot show its ops: the golden's prefill chooses for itself
    }
    backend::MemoryStats stats;
    device_cache_ = cache_inputs(prefill_.model.graph, prefill.backend->execute(*prefill.executable, prefill_.inputs, stats));
  }

  std::map<std::string, Tensor> device_inputs(const LoadedCase& loaded) const override {
    return with_cache(loaded.inputs, device_cache_);
  }

 private:
  // Every past input of the decode graph has its prefill output.
  void check_cache_inputs(const Graph& decode) const {
    std::set<std::string> present;
    for (const GraphOutput& o : prefill_.model.graph.outputs) present.insert(o.name);
    for (const Param* p : decode.inputs()) {
      if (!starts_with(p->name, sdk::kPastKeyValuesPrefix)) continue;
      const std::string want = sdk::kPresentPrefix + p->name.substr(std::string(sdk::kPastKeyValuesPrefix).size());
      if (!present.count(want)) {
        throw Error("decode: input '" + p->name + "' has no prefill output '" + want + "'");
      }
    }
  }

  const TestCase& case_;
  const PipelineOptions& options_;
  const CasePlan& plan_;
  LoadedCase prefill_;
  std::unique_ptr<DeviceRouting> prefill_routing_;  // the prefill's routes, when the model routes
  sdk::Inputs golden_cache_;
  sdk::Inputs device_cache_;
};

}  // namespace

std::shared_ptr<const ShardingRequest> decode_sharding(const ShardingRequest& decode,
                                                                 const Graph& prefill,
                                                                 const ShardingRequest& prefill_request) {
  auto merged = std::make_shared<ShardingRequest>(decode);
  for (const auto& [output, spec] : compiler::output_partition_specs(prefill, prefill_request)) {
    if (starts_with(output, sdk::kPresentPrefix)) merged->specs[past_for(output)] = spec;
  }
  return merged;
}

sdk::Inputs cache_inputs(const Graph& prefill, const std::vector<Tensor>& prefill_outputs) {
  if (prefill_outputs.size() != prefill.outputs.size()) {
    throw RuntimeError("prefill: " + std::to_string(prefill_outputs.size()) + " outputs for the graph's " +
                       std::to_string(prefill.outputs.size()));
  }
  sdk::Inputs cache;
  for (size_t i = 0; i < prefill.outputs.size(); ++i) {
    const std::string& name = prefill.outputs[i].name;
    if (starts_with(name, sdk::kPresentPrefix)) cache[past_for(name)] = prefill_outputs[i];
  }
  return cache;
}

std::unique_ptr<RunModeSteps> decode_steps(const TestCase& test_case, const PipelineOptions& options,
                                           const CasePlan& plan) {
  return std::make_unique<DecodeSteps>(test_case, options, plan);
}

}  // namespace meshtest::runner
