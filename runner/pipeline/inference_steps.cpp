// Inference steps: forward golden, the model compiled as it is, outputs compared.
#include "runner/pipeline/inference_steps.h"

#include "runner/pipeline/weight_streaming.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

namespace {

std::vector<std::string> output_names(const Graph& graph) {
  std::vector<std::string> names;
  for (const GraphOutput& o : graph.outputs) names.push_back(o.name);
  return names;
}

class InferenceSteps : public RunModeSteps {
 public:
  InferenceSteps(const config::TestEntry& entry, const CompileSettings& settings)
      : load_options_(inference_load_options(entry)),
        compile_only_(settings.compile_only),
        streaming_setting_(settings.stream_weights) {}

  std::string execution_pass() const override { return ""; }
  sdk::LoadOptions load_options() const override { return load_options_; }
  // --compile-only keeps lazy weights lazy: nothing executes them; streamed
  // weights stay lazy too: the golden and the chips make each when needed.
  void model_loaded(sdk::Model& model) override {
    streams_ = streams_weights(streaming_setting_, model.graph, host_physical_memory_bytes());
    if (!compile_only_ && !streams_) model.graph.materialize_weights();
  }
  bool stream_weights() const override { return streams_; }
  bool golden_first() const override { return true; }
  void run_golden(LoadedCase& loaded) override { golden_ = runtime::run_reference(loaded.model.graph, loaded.inputs); }
  const Graph& device_graph(const LoadedCase& loaded) override { return loaded.model.graph; }
  std::shared_ptr<const compiler::ShardingRequest> device_sharding(const LoadedCase& loaded) override {
    return loaded.sharding;
  }
  std::map<std::string, Tensor> device_inputs(const LoadedCase& loaded) const override { return loaded.inputs; }
  void check_device_outputs(const std::vector<Tensor>&) const override {}  // compare checks the count

  CaseVerdict compare(const LoadedCase& loaded, const std::vector<Tensor>& device,
                      const comparators::ComparisonConfig& config) override {
    const comparators::Verdict verdict =
        comparators::compare_outputs(output_names(loaded.model.graph), device, golden_, config);
    CaseVerdict v = summary_of(verdict);
    for (const comparators::OutputMetrics& m : verdict.outputs) {
      v.outputs.push_back({m.name, m.pcc, m.atol, m.rel_l2, m.passed, "output", m.norm_ratio});
    }
    return v;
  }

  SavedTensors tensors_to_save(const LoadedCase& loaded, const std::vector<Tensor>& device) const override {
    const std::vector<std::string> names = output_names(loaded.model.graph);
    return {{"golden", named_tensors(names, golden_)}, {"device", named_tensors(names, device)}};
  }

 private:
  sdk::LoadOptions load_options_;
  bool compile_only_;
  WeightStreaming streaming_setting_;
  bool streams_ = false;
  std::vector<Tensor> golden_;
};

}  // namespace

std::unique_ptr<RunModeSteps> inference_steps(const config::TestEntry& entry, const PipelineOptions& options) {
  return std::make_unique<InferenceSteps>(entry, options.compile);
}

sdk::LoadOptions inference_load_options(const config::TestEntry& entry) {
  sdk::LoadOptions options;
  options.seq_len = entry.seq_len;
  return options;
}

}  // namespace meshtest::runner
