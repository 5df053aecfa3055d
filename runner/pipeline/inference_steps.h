// The inference run mode of the one case pipeline: the golden is the CPU
// reference of the model's forward pass (run before compiling), the device
// compiles the model itself, and every graph output is compared. An
// LLM-matrix prefill case is one of these (its model also outputs the KV
// cache); a decode case extends it (decode_steps.h).
#pragma once

#include <memory>

#include "config/test_config.h"
#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/device_routing.h"
#include "runner/pipeline/run_mode_steps.h"

namespace meshtest::runner {

// The load options of an inference case: an LLM-matrix case's phase,
// seq_len and batch_size from its id; otherwise the YAML entry's seq_len and
// batch_size (unset: the loader's defaults).
sdk::LoadOptions inference_load_options(const TestCase& test_case);

class InferenceSteps : public RunModeSteps {
 public:
  // `streaming`: --stream-weights (a decode case passes Off: its prefill
  // runs on the device with the weights held). `timed_executions`: a perf run
  // (--perf, the `perf` marker) times repeated executions, so its chips
  // convert the weights once, up front, rather than on every execution's reads.
  InferenceSteps(const TestCase& test_case, bool compile_only, WeightStreaming streaming,
                 bool timed_executions = false);

  std::string execution_pass() const override { return ""; }
  sdk::LoadOptions load_options() const override { return load_options_; }
  // --compile-only keeps lazy weights lazy: nothing executes them; streamed
  // weights stay lazy too: the golden and the chips make each when needed.
  void model_loaded(sdk::Model& model) override;
  // Streamed (lazy), or converted on read: the weights are made once at load
  // for the golden, and each chip converts a weight to its device dtype at its
  // first read into a recycled buffer, dropped after its last read, instead of
  // converting the whole model into fresh pages before the first op (the
  // kernel clearing those pages was most of bert_base's device time).
  bool stream_weights() const override { return streams_ || converts_on_read_; }
  // After executing when the model routes (top-k experts): the golden
  // follows the device's checked choices (device_routing.h); else first.
  GoldenOrder golden_order() const override {
    return routing_ ? GoldenOrder::AfterExecute : GoldenOrder::BeforeCompile;
  }
  backend::OpObserver device_op_observer() override;
  void device_ops_unobservable() override { routing_.reset(); }
  void run_golden(LoadedCase& loaded) override;
  bool golden_is_device_reference() const override { return true; }
  void watch_golden(runtime::ReferenceOpHook watch) override { golden_watch_ = std::move(watch); }
  const Graph& device_graph(const LoadedCase& loaded) override { return loaded.model.graph; }
  std::shared_ptr<const ShardingRequest> device_sharding(const LoadedCase& loaded) override {
    return loaded.sharding;
  }
  std::map<std::string, Tensor> device_inputs(const LoadedCase& loaded) const override { return loaded.inputs; }
  void check_device_outputs(const std::vector<Tensor>&) const override {}  // compare checks the count
  CaseVerdict compare(const LoadedCase& loaded, const std::vector<Tensor>& device,
                      const comparators::ComparisonConfig& config) override;
  SavedTensors tensors_to_save(const LoadedCase& loaded, const std::vector<Tensor>& device) const override;

 protected:
  bool compile_only_;
  WeightStreaming streaming_setting_;
  bool timed_executions_;
  bool streams_ = false;           // the model's weights stay lazy (golden and chips make each)
  bool converts_on_read_ = false;  // made at load; each chip converts its copy on read (auto, small models)
  std::unique_ptr<DeviceRouting> routing_;  // set in model_loaded for a model with topk_mask ops
  sdk::LoadOptions load_options_;
  std::vector<Tensor> golden_;
  runtime::ReferenceOpHook golden_watch_;  // watch_golden's, after the routing hook
};

std::unique_ptr<RunModeSteps> inference_steps(const TestCase& test_case, const PipelineOptions& options);

}  // namespace meshtest::runner
