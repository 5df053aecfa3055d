// Inference steps: forward golden, the model compiled as it is, outputs compared.
#include "runner/pipeline/inference_steps.h"

#include "runner/pipeline/perf_phase.h"
#include "runner/pipeline/weight_streaming.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

namespace {

std::vector<std::string> output_names(const Graph& graph) {
  std::vector<std::string> names;
  for (const GraphOutput& o : graph.outputs) names.push_back(o.name);
  return names;
}

}  // namespace

sdk::LoadOptions inference_load_options(const TestCase& c) {
  sdk::LoadOptions o;
  if (c.lm) {
    o.phase = c.lm->phase;
    o.seq_len = c.lm->seq_len;
    o.batch_size = c.lm->batch_size;
  } else {
    o.seq_len = c.expectation.seq_len;
    o.batch_size = c.expectation.batch_size;
  }
  return o;
}

InferenceSteps::InferenceSteps(const TestCase& test_case, bool compile_only, WeightStreaming streaming,
                               bool timed_executions)
    : compile_only_(compile_only),
      streaming_setting_(streaming),
      timed_executions_(timed_executions),
      load_options_(inference_load_options(test_case)) {}

void InferenceSteps::model_loaded(sdk::Model& model) {
  streams_ = streams_weights(streaming_setting_, model.graph, host_physical_memory_bytes());
  converts_on_read_ = !streams_ && streaming_setting_ == WeightStreaming::Auto && !timed_executions_;
  if (!compile_only_ && !streams_) model.graph.materialize_weights();
  if (!compile_only_ && has_device_routing(model.graph)) {
    routing_ = std::make_unique<DeviceRouting>();
  }
}

backend::OpObserver InferenceSteps::device_op_observer() {
  if (!routing_) return {};
  return [routing = routing_.get()](const backend::OpExecution& e) { routing->observe(e); };
}

void InferenceSteps::run_golden(LoadedCase& loaded) {
  const runtime::ReferenceOpHook route =
      routing_ ? routing_->golden_hook(loaded.model.graph) : runtime::ReferenceOpHook{};
  const runtime::ReferenceOpHook hook =
      !golden_watch_ ? route
                     : [&](size_t position, const Op& op, const std::vector<Tensor>& operands, Tensor& result) {
                         if (route) route(position, op, operands, result);
                         golden_watch_(position, op, operands, result);
                       };
  golden_ = runtime::run_reference(loaded.model.graph, loaded.inputs, hook);
}

CaseVerdict InferenceSteps::compare(const LoadedCase& loaded, const std::vector<Tensor>& device,
                                    const comparators::ComparisonConfig& config) {
  const comparators::Verdict verdict =
      comparators::compare_outputs(output_names(loaded.model.graph), device, golden_, config);
  CaseVerdict v = summary_of(verdict);
  for (const comparators::OutputMetrics& m : verdict.outputs) {
    v.outputs.push_back({m.name, m.pcc, m.atol, m.rel_l2, m.passed, "output", m.norm_ratio, m.decided_by});
  }
  if (routing_) add_routing(*routing_, config, v);
  return v;
}

SavedTensors InferenceSteps::tensors_to_save(const LoadedCase& loaded, const std::vector<Tensor>& device) const {
  const std::vector<std::string> names = output_names(loaded.model.graph);
  return {{"golden", named_tensors(names, golden_)}, {"device", named_tensors(names, device)}};
}

std::unique_ptr<RunModeSteps> inference_steps(const TestCase& test_case, const PipelineOptions& options) {
  return std::make_unique<InferenceSteps>(test_case, options.compile.compile_only, options.compile.stream_weights,
                                          perf_iterations_for(test_case, options.perf_iterations) > 0);
}

}  // namespace meshtest::runner
