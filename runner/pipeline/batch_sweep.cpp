// Perf mode's batch sweep: load, compile and time the case at each batch.
#include "runner/pipeline/batch_sweep.h"

#include <charconv>
#include <cstdio>
#include <new>

#include "core/error.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/inference_steps.h"
#include "runner/pipeline/parallel_setup.h"
#include "runner/pipeline/perf_phase.h"

namespace meshtest::runner {

std::vector<int64_t> parse_batches(const std::string& text) {
  std::vector<int64_t> out;
  for (size_t start = 0; start <= text.size();) {
    const size_t comma = std::min(text.find(',', start), text.size());
    int64_t b = 0;
    const char* first = text.data() + start;
    const char* last = text.data() + comma;
    const auto [end, ec] = std::from_chars(first, last, b);
    if (ec != std::errc() || end != last || b <= 0 || (!out.empty() && b <= out.back())) {
      throw ParseError("--batch '" + text + "': expected increasing positive batch sizes joined by ',' (1,2,4,8)");
    }
    out.push_back(b);
    start = comma + 1;
  }
  return out;
}

namespace {

// One point: the model at `batch`, compiled, then timed (or modelled).
BatchPoint measure(const TestCase& c, const CasePlan& plan, const CompileSettings& settings, int64_t batch,
                   int iterations) {
  sdk::LoadOptions load = inference_load_options(c);
  load.batch_size = batch;
  sdk::Model model = c.loader->loader->load_model(c.info.variant, model_load_options(plan.layout, load));
  model.graph.materialize_weights();
  sdk::Inputs inputs = c.loader->loader->load_inputs(c.info.variant, load);
  ParallelPlan parallel = prepare_parallel(plan.layout, model, inputs);
  CompileTarget target = plan.target;
  target.sharding = parallel.sharding;
  CompiledCase compiled = compile_graph(model.graph, settings, target);
  BatchPoint p;
  p.batch = batch;
  const double modelled = compiled.executable->info().cost.seconds;
  reports::CaseResult timing;
  run_perf(*compiled.backend, *compiled.executable, inputs, iterations, timing);
  // A backend that models its device and has no device clock (simulated):
  // its own time is the model's; a measured device time wins when there is one.
  p.modelled = modelled > 0 && !timing.perf_device_timed;
  p.seconds = p.modelled ? modelled : timing.perf_execute_seconds;
  p.samples_per_second = p.seconds > 0 ? static_cast<double>(batch) / p.seconds : 0;
  return p;
}

}  // namespace

BatchSweep sweep_batches(const TestCase& c, const CasePlan& plan, const CompileSettings& settings,
                         const std::vector<int64_t>& batches, int iterations) {
  BatchSweep sweep;
  double best = 0;
  for (int64_t b : batches) {
    BatchPoint p;
    try {
      p = measure(c, plan, settings, b, iterations);
    } catch (const OutOfMemoryError& e) {
      sweep.stopped = "out of memory at batch " + std::to_string(b) + ": " + e.what();
      return sweep;
    } catch (const std::bad_alloc&) {
      sweep.stopped = "host out of memory at batch " + std::to_string(b);
      return sweep;
    } catch (const std::exception& e) {  // the sweep is a measurement: it ends, the case stands
      sweep.stopped = "batch " + std::to_string(b) + " failed: " + e.what();
      return sweep;
    }
    sweep.points.push_back(p);
    if (best > 0 && p.samples_per_second < best * kSweepMinimumGain) {
      if (b != batches.back()) sweep.stopped = "throughput stopped rising at batch " + std::to_string(b);
      return sweep;
    }
    best = std::max(best, p.samples_per_second);
  }
  return sweep;
}

std::string sweep_text(const BatchSweep& sweep) {
  std::string out;
  for (const BatchPoint& p : sweep.points) {
    char line[96];
    std::snprintf(line, sizeof line, "b=%lld %.3f ms %.1f/s%s", static_cast<long long>(p.batch), p.seconds * 1e3,
                  p.samples_per_second, p.modelled ? " (modelled)" : "");
    out += (out.empty() ? "" : "; ") + std::string(line);
  }
  if (!sweep.stopped.empty()) out += (out.empty() ? "" : "; ") + ("stopped: " + sweep.stopped);
  return out;
}

}  // namespace meshtest::runner
