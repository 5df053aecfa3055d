// One case through every phase, timed, with failures mapped to bring-up
// status; the run mode's steps (inference_steps.h, training_steps.h) fill in
// what differs.
#include "runner/pipeline/case_pipeline.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include "comparators/metrics.h"
#include "core/error.h"
#include "core/rng.h"
#include "runner/pipeline/batch_sweep.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/decode_steps.h"
#include "runner/pipeline/golden_anchor.h"
#include "runner/pipeline/host_memory.h"
#include "runner/pipeline/inference_steps.h"
#include "runner/pipeline/input_file.h"
#include "runner/pipeline/op_golden.h"
#include "runner/pipeline/parallel_setup.h"
#include "runner/pipeline/perf_phase.h"
#include "runner/pipeline/phase_memory.h"
#include "runner/pipeline/run_mode_steps.h"
#include "runner/pipeline/saved_tensors.h"
#include "runner/pipeline/test_fault_hook.h"
#include "runner/pipeline/training_steps.h"

namespace meshtest::runner {

using reports::CaseResult;
using reports::FailureKind;
using reports::Outcome;

std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::LoadModel: return "load_model";
    case Phase::LoadInputs: return "load_inputs";
    case Phase::Golden: return "golden";
    case Phase::Compile: return "compile";
    case Phase::Execute: return "execute";
    case Phase::Compare: return "compare";
    case Phase::Done: return "done";
  }
  return "?";
}

config::BringupStatus bringup_for(Phase phase) {
  switch (phase) {
    case Phase::LoadModel:
    case Phase::LoadInputs:
    case Phase::Golden: return config::BringupStatus::FailedFeCompilation;
    case Phase::Compile: return config::BringupStatus::FailedTtmlirCompilation;
    case Phase::Execute: return config::BringupStatus::FailedRuntime;
    case Phase::Compare: return config::BringupStatus::IncorrectResult;
    case Phase::Done: return config::BringupStatus::Passed;
  }
  return config::BringupStatus::Unknown;
}

namespace {

// CaseResult::device_outputs_digest: each output's dtype class, shape and
// bytes (floating ones as f32 values) hashed, the hashes mixed in order.
std::string outputs_digest(const std::vector<Tensor>& outputs) {
  uint64_t digest = 0;
  for (const Tensor& t : outputs) {
    const bool as_f32 = is_floating(t.dtype()) && t.dtype() != DType::F64;
    const Tensor canonical = as_f32 && t.dtype() != DType::F32 ? t.to(DType::F32) : t;
    const std::string type = (as_f32 ? "f32" : std::string(dtype_name(t.dtype()))) + shape_to_string(t.shape());
    digest = mix_seed(digest, hash_seed(type));
    digest = mix_seed(digest, hash_seed({static_cast<const char*>(canonical.raw_data()), canonical.nbytes()}));
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(digest));
  return hex;
}

comparators::ComparisonConfig comparison_for(const config::TestEntry& e) {
  comparators::ComparisonConfig c;
  if (e.required_pcc) c.required_pcc = *e.required_pcc;
  if (e.assert_pcc) c.assert_pcc = *e.assert_pcc;
  if (e.required_atol) c.required_atol = *e.required_atol;
  if (e.assert_atol) c.assert_atol = *e.assert_atol;
  if (e.assert_allclose) c.assert_allclose = *e.assert_allclose;
  if (e.allclose_rtol) c.allclose_rtol = *e.allclose_rtol;
  if (e.allclose_atol) c.allclose_atol = *e.allclose_atol;
  if (e.assert_scale) c.assert_scale = *e.assert_scale;
  if (e.scale_tolerance) c.scale_tolerance = *e.scale_tolerance;
  return c;
}

constexpr const char* kCompileOnlyReason = "compile-only: compiled and memory-planned, not executed";

// Outcome of a finished case given its expectation.
Outcome judge(bool passed, const config::TestEntry& e, bool strict_xfail) {
  const bool xfail = e.status == config::TestStatus::KnownFailureXfail;
  if (passed) return xfail ? (strict_xfail ? Outcome::Xpassed : Outcome::Passed) : Outcome::Passed;
  return xfail ? Outcome::Xfailed : Outcome::Failed;
}

// The settings that change numerics, as this case runs with them (CLI over
// YAML over defaults); batch and sequence length 0 when the loader's own.
void record_numeric_settings(const TestCase& c, const CasePlan& plan, CaseResult& r) {
  const backend::DeviceSettings& device = plan.target.device;
  r.weights_dtype = std::string(dtype_name(device.weight_dtype));
  r.math_fidelity = device.math_fidelity;
  r.optimization_level = device.optimization_level;
  const sdk::LoadOptions load = model_load_options(
      plan.layout, c.run_mode == RunMode::Training ? training_load_options(c.expectation) : inference_load_options(c));
  r.batch_size = load.batch_size.value_or(0);
  r.sequence_length = load.seq_len.value_or(0);
}

// --save-tensors: the case's inputs and whatever the run mode has
// (saved_tensors.h); a write error is added to the record's message.
void save_tensors(const RunModeSteps& steps, const LoadedCase& loaded, const std::vector<Tensor>& device,
                  const std::string& dir, CaseResult& r) {
  SavedTensors files = steps.tensors_to_save(loaded, device);
  files["inputs"] = loaded.inputs;
  try {
    r.saved_tensors = save_case_tensors(dir, r.test_id, files);
  } catch (const std::exception& e) {
    r.error_message += std::string(r.error_message.empty() ? "" : "; ") + "--save-tensors failed: " + e.what();
  }
}

// Op-level golden for this case: on with --op-golden DIR (a report), and as a
// check with --op-golden-check or YAML op_golden: true.
OpGoldenPlan op_golden_plan(const config::TestEntry& e, const PipelineOptions& options) {
  OpGoldenPlan plan;
  plan.report = !options.op_golden_dir.empty();
  plan.check = options.op_golden_check || e.op_golden.value_or(false);
  if (e.op_required_pcc) plan.thresholds.required_pcc = *e.op_required_pcc;
  if (e.op_scale_tolerance) plan.thresholds.scale_tolerance = *e.op_scale_tolerance;
  if (e.op_max_ulp) plan.thresholds.max_ulp = *e.op_max_ulp;
  plan.thresholds.every_element = plan.report;
  return plan;
}

// The rows of one execution: op_golden.jsonl under --op-golden DIR, the first
// op past its thresholds in the record; with the check on, that op fails a
// case that otherwise passed (returns the failure's message, else "").
std::string finish_op_golden(OpGolden& op_golden, const OpGoldenPlan& plan, const std::string& dir, CaseResult& r) {
  const std::vector<OpGoldenRow> rows = op_golden.finish();
  if (plan.report) {
    const std::filesystem::path folder = std::filesystem::path(dir) / sanitize_test_id(r.test_id);
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "op_golden.jsonl") << op_golden_jsonl(rows);
  }
  const OpGoldenRow* first = first_past(rows);
  if (first == nullptr) return "";
  r.first_bad_op = describe_row(*first);
  return plan.check ? "op-level golden: a device op is past its per-op thresholds (" + first->op + ")" : "";
}

}  // namespace

CompileTarget compile_target(const PipelineOptions& options, const config::TestEntry& entry) {
  CompileTarget target;
  target.backend = options.backend;
  target.device = resolve_device_settings(options.compile, entry);
  target.chip = options.chip;
  target.chips = options.arch.chips;
  target.pjrt_plugin = options.pjrt_plugin;
  target.pjrt_options = options.pjrt_options;
  return target;
}

CasePlan plan_case(const TestCase& c, const PipelineOptions& options) {
  CasePlan plan;
  plan.layout = case_layout(c, options.arch);
  plan.target = compile_target(options, c.expectation);
  plan.comparison = comparison_for(c.expectation);
  plan.op_golden = op_golden_plan(c.expectation, options);
  plan.perf_iterations = perf_iterations_for(c, options.perf_iterations);
  return plan;
}

namespace {

// The record's identity fields, from the case and its plan.
CaseResult describe_planned(const TestCase& c, const PipelineOptions& options, const CasePlan& plan) {
  CaseResult r;
  r.test_id = c.id;
  r.loader_dir = c.loader_dir;
  r.model = c.info.model;
  r.variant = c.info.variant;
  r.group = c.info.group;
  r.task = c.info.task;
  r.source = c.info.source;
  r.framework = c.info.framework;
  r.parallelism = c.loader_error.empty() ? std::string(parallelism_name(c.parallelism)) : "";
  r.run_mode = c.loader_error.empty() ? std::string(run_mode_name(c.run_mode)) : "";
  r.arch = options.chip.arch;
  r.backend = options.backend;
  r.mesh = planned_mesh_text(plan.layout);
  r.markers = c.markers;
  r.status = std::string(config::status_name(c.expectation.status));
  r.reason = c.expectation.reason;
  const comparators::ComparisonConfig& cmp = plan.comparison;
  r.required_pcc = cmp.required_pcc;
  r.required_atol = cmp.required_atol;
  r.assert_pcc = cmp.assert_pcc;
  r.assert_atol = cmp.assert_atol;
  r.assert_allclose = cmp.assert_allclose;
  r.scale_tolerance = cmp.assert_scale ? cmp.scale_tolerance : NAN;
  record_numeric_settings(c, plan, r);
  return r;
}

}  // namespace

CaseResult describe_case(const TestCase& c, const PipelineOptions& options) {
  return describe_planned(c, options, plan_case(c, options));
}

CaseResult run_case(const TestCase& c, const PipelineOptions& options, const PhaseObserver& observer) {
  const CasePlan plan = plan_case(c, options);  // every setting of the case, resolved once
  CaseResult r = describe_planned(c, options, plan);
  r.started_at = reports::utc_now_iso8601();
  const auto wall_start = std::chrono::steady_clock::now();
  PhaseMemoryLog memory(options.log_memory);
  auto finish = [&](CaseResult& res) {
    res.finished_at = reports::utc_now_iso8601();
    res.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    res.peak_host_rss_bytes = peak_rss_bytes();
    memory.finish(res);
    return res;
  };

  if (!c.loader_error.empty()) {
    r.outcome = Outcome::Error;
    r.phase = "discover";
    r.bringup_status = std::string(config::bringup_name(config::BringupStatus::FailedFeCompilation));
    r.failure_kind = FailureKind::Exception;
    r.error_message = c.loader_error;
    return finish(r);
  }
  if (c.placeholder) {  // a planned model without a loader: reported, never run
    r.outcome = Outcome::Skipped;
    r.bringup_status = std::string(
        config::bringup_name(c.expectation.bringup_status.value_or(config::BringupStatus::NotStarted)));
    if (r.reason.empty()) r.reason = "placeholder: no loader yet";
    return finish(r);
  }
  // Skipped without running: NOT_SUPPORTED_SKIP, a case the arch's mesh does
  // not fit, --compile-only once compiled.
  auto not_run = [&](std::string phase, const std::string& why) {
    r.outcome = Outcome::Skipped;
    r.phase = std::move(phase);
    r.bringup_status = std::string(config::bringup_name(config::BringupStatus::NotStarted));
    if (!why.empty()) r.reason = why;
    return finish(r);
  };
  if (c.expectation.status == config::TestStatus::NotSupportedSkip && !options.force_run) return not_run("", "");
  if (const std::optional<std::string> why = parallel_skip_reason(plan.layout)) return not_run("", *why);

  const std::unique_ptr<RunModeSteps> steps =
      c.run_mode == RunMode::Training ? training_steps(c, options)
      : c.lm && c.lm->phase == sdk::LmPhase::Decode ? decode_steps(c, options, plan)
                                                     : inference_steps(c, options);
  r.execution_pass = steps->execution_pass();  // kept whatever happens below
  const comparators::ComparisonConfig& comparison = plan.comparison;
  reset_peak_rss();
  Phase phase = Phase::LoadModel;
  auto enter = [&](Phase next) {
    phase = next;
    memory.enter(next);
    if (observer) observer(next);
    fail_phase_if_injected(c.id, phase_name(next));
  };
  auto golden = [&](LoadedCase& loaded) {
    enter(Phase::Golden);
    PhaseClock clock(r.seconds.golden);
    steps->run_golden(loaded);
  };
  // Kept past a failure for --save-tensors: what loaded, what the device returned.
  LoadedCase loaded;
  std::vector<Tensor> checked_device;
  try {
    enter(Phase::LoadModel);
    {
      PhaseClock clock(r.seconds.load);
      const sdk::LoadOptions load_options = steps->load_options();
      // Data parallel: the model at the enlarged batch, inputs repeated to it.
      loaded.model = c.loader->loader->load_model(c.info.variant, model_load_options(plan.layout, load_options));
      // A training case compares the gradients of weights: without any it
      // would repeat the inference case and pass for nothing.
      if (c.run_mode == RunMode::Training && loaded.model.graph.weights().empty()) {
        return not_run("", "training: the model has no weights to train (its parameters are inputs)");
      }
      steps->model_loaded(loaded.model);
      enter(Phase::LoadInputs);
      loaded.inputs = c.loader->loader->load_inputs(c.info.variant, load_options);
      apply_input_file(c.info.variant, loaded.inputs);
      ParallelPlan parallel = prepare_parallel(plan.layout, loaded.model, loaded.inputs);
      if (!parallel.skip_reason.empty()) return not_run("", parallel.skip_reason);
      loaded.sharding = std::move(parallel.sharding);
      steps->inputs_prepared(loaded);
    }
    const bool compile_only = options.compile.compile_only;
    const OpGoldenPlan& op_plan = plan.op_golden;
    // The golden-anchored intermediates, with the per-op check on one chip
    // (golden_anchor.h): they watch an inference golden, which then runs
    // after executing, rather than run the graph's reference a second time.
    const bool anchored = op_plan.enabled() && !loaded.sharding;
    const bool anchor_watches_golden = anchored && steps->golden_is_device_reference();
    using GoldenOrder = RunModeSteps::GoldenOrder;
    const GoldenOrder golden_order = anchor_watches_golden ? GoldenOrder::AfterExecute : steps->golden_order();
    if (golden_order == GoldenOrder::BeforeCompile && !compile_only) golden(loaded);
    enter(Phase::Compile);
    CompiledCase compiled;
    const Graph* compiled_graph = nullptr;  // the golden anchor's reference graph
    {
      PhaseClock clock(r.seconds.compile);
      const Graph& graph = steps->device_graph(loaded);
      compiled_graph = &graph;
      CompileTarget target = plan.target;
      target.sharding = steps->device_sharding(loaded);
      target.stream_weights = steps->stream_weights();
      try {
        compiled = compile_case(c.id, c.expectation, graph, options.compile, target, r);
      } catch (const backend::DevicesUnavailable& e) {
        return not_run("", e.what());  // a mesh the backend's devices cannot hold: skipped, never failed
      }
    }
    // --compile-only: the case stops once compiled and memory-planned.
    if (compile_only) return not_run(std::string(phase_name(phase)), kCompileOnlyReason);
    if (golden_order == GoldenOrder::BeforeExecute) golden(loaded);
    enter(Phase::Execute);
    std::vector<Tensor> device;
    OpGolden op_golden(op_plan.thresholds);
    std::optional<GoldenAnchor> anchor;
    if (anchored) anchor.emplace(*compiled_graph, op_plan.thresholds.every_element);
    std::string op_failure;
    std::string anchor_failure;
    {
      PhaseClock clock(r.seconds.execute);
      steps->before_execute();
      backend::OpObserver steps_observer = steps->device_op_observer();
      const bool observed =
          (op_plan.enabled() || steps_observer) &&
          compiled.backend->observe_ops(*compiled.executable, [&op_plan, &op_golden, &anchor, steps_observer](
                                                                  const backend::OpExecution& e) {
            if (op_plan.enabled()) op_golden.observe(e);
            if (anchor) anchor->observe(e);
            if (steps_observer) steps_observer(e);
          });
      // A backend that cannot show its ops (a PJRT plugin) runs the case
      // without the per-op check and with a golden that makes its own
      // discrete choices, and the record says so.
      auto not_applied = [&](const std::string& what) {
        r.backend_options_not_applied += std::string(r.backend_options_not_applied.empty() ? "" : "; ") + what +
                                         " (backend '" + options.backend + "' does not report per-op results)";
      };
      if (steps_observer && !observed) {
        steps->device_ops_unobservable();
        not_applied("golden routing by the device's top-k choices");
      }
      const bool op_golden_on = op_plan.enabled() && observed;
      if (op_plan.enabled() && !observed) not_applied("op_golden");
      backend::MemoryStats stats;
      device = compiled.backend->execute(*compiled.executable, steps->device_inputs(loaded), stats);
      record_execution_stats(stats, options.chip, r);
      if (op_golden_on) op_failure = finish_op_golden(op_golden, op_plan, options.op_golden_dir, r);
      if (!op_golden_on) anchor.reset();
      if (anchor && !anchor_watches_golden) {
        anchor_failure = record_golden_anchor([&] { return anchor->finish(steps->device_inputs(loaded)); }, op_plan,
                                              options.op_golden_dir, r);
      }
    }
    if (anchor && anchor_watches_golden) steps->watch_golden(anchor->watch());
    if (golden_order == GoldenOrder::AfterExecute) golden(loaded);
    if (anchor && anchor_watches_golden) {
      anchor_failure = record_golden_anchor([&] { return anchor->report(); }, op_plan, options.op_golden_dir, r);
    }
    steps->check_device_outputs(device);
    checked_device = device;
    r.device_outputs_digest = outputs_digest(device);
    if (const int iterations = plan.perf_iterations; iterations > 0) {
      run_perf(*compiled.backend, *compiled.executable, steps->device_inputs(loaded), iterations, r);
      if (!options.perf_batches.empty() && c.run_mode == RunMode::Inference && !c.lm) {
        r.perf_batch_sweep = sweep_text(sweep_batches(c, plan, options.compile, options.perf_batches, iterations));
      }
    }
    enter(Phase::Compare);
    CaseVerdict verdict;
    {
      PhaseClock clock(r.seconds.compare);
      verdict = steps->compare(loaded, device, comparison);
    }
    if (!op_failure.empty() && verdict.passed) {
      verdict.passed = false;
      verdict.message = op_failure;
    }
    add_anchor_failure(anchor_failure, verdict.passed, verdict.message);
    if (options.codegen.check || !options.codegen.out_dir.empty()) {
      const std::string failure = run_codegen(*compiled.backend, *compiled.executable, steps->device_inputs(loaded),
                                              device, c.expectation.codegen_assert_exact.value_or(true), comparison,
                                              options.codegen, r);
      if (!failure.empty()) {
        verdict.message += (verdict.passed ? "codegen: " : "; codegen: ") + failure;
        verdict.passed = false;
      }
    }
    r.pcc = verdict.min_pcc;
    r.atol = verdict.max_atol;
    r.rel_l2 = verdict.max_rel_l2;
    r.routing_rows = verdict.routing_rows;
    r.routing_followed = verdict.routing_followed;
    r.outputs = std::move(verdict.outputs);
    if (!c.expectation.execution_pass) r.execution_pass = verdict.failed_pass;  // else the YAML's
    if (verdict.passed) enter(Phase::Done);
    r.phase = std::string(phase_name(phase));
    r.bringup_status = std::string(config::bringup_name(bringup_for(phase)));
    r.error_message = verdict.message;
    r.outcome = judge(verdict.passed, c.expectation, options.strict_xfail);
  } catch (const std::exception& e) {
    r.phase = std::string(phase_name(phase));
    r.bringup_status = std::string(config::bringup_name(bringup_for(phase)));
    r.failure_kind = dynamic_cast<const OutOfMemoryError*>(&e) || dynamic_cast<const std::bad_alloc*>(&e)
                         ? FailureKind::Oom
                         : FailureKind::Exception;
    r.error_message = e.what();
    r.outcome = judge(false, c.expectation, options.strict_xfail);
  }
  // --save-tensors: a failed case's; with --save-tensors-when always, every case that got this far.
  if (!options.save_tensors_dir.empty() && (r.outcome == Outcome::Failed || options.save_tensors_always)) {
    save_tensors(*steps, loaded, checked_device, options.save_tensors_dir, r);
  }
  return finish(r);
}

}  // namespace meshtest::runner
