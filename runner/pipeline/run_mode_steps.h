// What a run mode adds to the one case pipeline (case_pipeline.cpp). The
// pipeline loads the model and inputs, runs the CPU golden, compiles,
// executes and compares, each once for every mode, timing each phase and
// mapping failures to bring-up status; a mode says which load options, which
// graph the device compiles (inference: the model; training: the joint
// forward + backward graph, with an optimizer step), what the golden
// computes, what the device is fed and how the results are judged.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "comparators/metrics.h"
#include "core/sharding.h"
#include "discovery/loader_sdk.h"
#include "reports/case_result.h"
#include "runtime/reference/reference_executor.h"
#include "runner/pipeline/saved_tensors.h"

namespace meshtest::runner {

// The compare phase's result, whatever the mode.
struct CaseVerdict {
  bool passed = true;
  std::string message;      // the first failure; empty when passed
  std::string failed_pass;  // training: "FORWARD" / "BACKWARD" / ""; inference: ""
  std::vector<reports::OutputResult> outputs;
  double min_pcc = 1.0;
  double max_atol = 0.0;
  double max_rel_l2 = 0.0;
  int64_t routing_rows = 0;      // top-k choices the golden checked (device_routing.h)
  int64_t routing_followed = 0;  // of them, where it took the device's choice over its own
};

// A comparator verdict's summary (passed, first failure, figures) as the
// pipeline's; the mode adds the per-tensor results.
template <typename ComparatorVerdict>
CaseVerdict summary_of(const ComparatorVerdict& verdict) {
  CaseVerdict v;
  v.passed = verdict.passed;
  v.message = verdict.message;
  v.min_pcc = verdict.min_pcc;
  v.max_atol = verdict.max_atol;
  v.max_rel_l2 = verdict.max_rel_l2;
  return v;
}

// The model, its inputs and the device's sharding request, as the load
// phase left them (data parallel: the enlarged batch).
struct LoadedCase {
  sdk::Model model;
  sdk::Inputs inputs;
  std::shared_ptr<const ShardingRequest> sharding;  // null: one chip
};

class RunModeSteps {
 public:
  virtual ~RunModeSteps() = default;
  // The record's execution_pass before anything runs (kept whatever happens).
  virtual std::string execution_pass() const = 0;
  // How the loader builds the model and its inputs (batch, sequence length).
  virtual sdk::LoadOptions load_options() const = 0;
  // Right after load_model, still in that phase.
  virtual void model_loaded(sdk::Model& model) = 0;
  // Once the inputs are loaded and laid out for the case's strategy (load
  // phase): a decode case loads its prefill here and joins the cache's layout.
  virtual void inputs_prepared(LoadedCase& /*loaded*/) {}
  // At the start of the execute phase: a decode case runs its prefill on the
  // device for the cache the device is fed.
  virtual void before_execute() {}
  // Whether the model's weights stay lazy and the device streams them
  // (--stream-weights; decided in model_loaded).
  virtual bool stream_weights() const { return false; }
  // When the golden runs: before compiling, after compiling (before
  // executing), or after executing (it follows the device's routing:
  // device_routing.h). Asked once the model is loaded.
  enum class GoldenOrder { BeforeCompile, BeforeExecute, AfterExecute };
  virtual GoldenOrder golden_order() const = 0;
  // Sees every device op of the execution (empty: nothing to see).
  virtual backend::OpObserver device_op_observer() { return {}; }
  // The backend cannot show its ops (a PJRT plugin): the golden makes its
  // own discrete choices instead of following the device's
  // (device_routing.h), so a choice flipped near a tie can fail the case.
  virtual void device_ops_unobservable() {}
  // The CPU reference of everything compare will judge.
  virtual void run_golden(LoadedCase& loaded) = 0;
  // Whether the golden is the CPU reference run of device_graph() on
  // device_inputs() and nothing else (inference; not decode or training):
  // the golden-anchored intermediates (golden_anchor.h) then watch that run,
  // after executing, instead of repeating it.
  virtual bool golden_is_device_reference() const { return false; }
  // Where golden_is_device_reference(): the next run_golden lets `watch` see
  // (and follow) each op of its reference run, after the mode's own hook.
  virtual void watch_golden(runtime::ReferenceOpHook /*watch*/) {}
  // The graph the device compiles and its sharding request (compile phase).
  virtual const Graph& device_graph(const LoadedCase& loaded) = 0;
  virtual std::shared_ptr<const ShardingRequest> device_sharding(const LoadedCase& loaded) = 0;
  // What the device program is fed (execute phase).
  virtual std::map<std::string, Tensor> device_inputs(const LoadedCase& loaded) const = 0;
  // Checks what the device returned (execute phase; throws RuntimeError).
  virtual void check_device_outputs(const std::vector<Tensor>& outputs) const = 0;
  // Judges the device's outputs against the golden (compare phase).
  virtual CaseVerdict compare(const LoadedCase& loaded, const std::vector<Tensor>& device,
                              const comparators::ComparisonConfig& config) = 0;
  // What --save-tensors writes of a failed case besides its inputs, by file
  // stem ("golden", "device", ...): only what exists so far (no golden before
  // the golden phase ran; `device` empty unless execute returned checked outputs).
  virtual SavedTensors tensors_to_save(const LoadedCase& loaded, const std::vector<Tensor>& device) const = 0;
};

}  // namespace meshtest::runner
