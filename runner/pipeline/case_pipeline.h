// The per-case pipeline, one for every run mode: load model + inputs -> CPU
// golden -> compile -> execute on the backend -> compare, each step a named
// phase (training compiles before its golden; the run mode's steps,
// run_mode_steps.h, say what each step does). The
// phase a failure happens in decides the bring-up status (DESIGN.md §1):
//   load_model, load_inputs, golden   -> FAILED_FE_COMPILATION
//   compile                           -> FAILED_TTMLIR_COMPILATION
//   execute                           -> FAILED_RUNTIME
//   compare                           -> INCORRECT_RESULT
// A golden (CPU reference) failure is a model/front-end problem, so it
// counts as FAILED_FE_COMPILATION.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "backend/registry.h"
#include "reports/case_result.h"
#include "runner/collection/test_case.h"
#include "runner/pipeline/codegen_check.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/op_golden.h"
#include "runner/pipeline/parallel_setup.h"
#include "runner/pipeline/compile_settings.h"
#include "runtime/arch/arch_profile.h"
#include "runtime/device/chip_spec.h"

namespace meshtest::runner {

struct PipelineOptions {
  std::string backend = std::string(backend::kDefaultBackend);  // --backend: by name (runner/pipeline/backends.h)
  std::string pjrt_plugin;                // --pjrt-plugin / MESHTEST_PJRT_PLUGIN (--backend pjrt)
  std::vector<std::string> pjrt_options;  // --pjrt-option NAME=VALUE (pjrt/named_values.h)
  runtime::ChipSpec chip;
  runtime::ArchProfile arch;  // --arch: chips and mesh (its chip is `chip`)
  CompileSettings compile;      // --serialize, --compile-only, cache, weight dtype, fidelity, fusion
  bool force_run = false;     // run NOT_SUPPORTED_SKIP cases too
  bool strict_xfail = true;   // an xfail case that passes is XPASS (unexpected)
  std::optional<double> sgd_learning_rate;  // --optimizer-step sgd:LR (training cases)
  std::string op_golden_dir;   // --op-golden DIR: per-op report DIR/<case>/op_golden.jsonl; empty: off
  bool op_golden_check = false;  // --op-golden-check: every case fails past its per-op thresholds (else YAML op_golden)
  std::string save_tensors_dir;             // --save-tensors DIR: a failed case's tensors (saved_tensors.h); empty: off
  bool save_tensors_always = false;         // --save-tensors-when always: every case that ran, passed ones too
  bool log_memory = false;                  // --log-memory: peak host memory per phase (phase_memory.h)
  // Perf mode (docs/how-to/perf.md): timed executions after one warm-up, for
  // every case (--perf N) or only those marked `perf` (0: kDefaultPerfIterations).
  int perf_iterations = 0;
  std::vector<int64_t> perf_batches;  // --batch 1,2,4,...: perf mode's batch sweep (batch_sweep.h); empty: none
  CodegenSettings codegen;                  // run --emitc, meshtest codegen (codegen_check.h)
};

enum class Phase { LoadModel, LoadInputs, Golden, Compile, Execute, Compare, Done };
std::string_view phase_name(Phase phase);
// The bring-up status a failure in `phase` gets (the table above).
config::BringupStatus bringup_for(Phase phase);

// Adds the time from construction to destruction to `slot` (a phase's seconds).
class PhaseClock {
 public:
  explicit PhaseClock(double& slot) : slot_(slot), start_(std::chrono::steady_clock::now()) {}
  ~PhaseClock() { slot_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;

 private:
  double& slot_;
  std::chrono::steady_clock::time_point start_;
};

// Called as the case enters each phase (for progress and heartbeats of
// isolated workers); may be empty.
using PhaseObserver = std::function<void(Phase)>;

// Where a case's programs compile for: the options' backend and arch, the
// device settings of the CLI over `entry` over the defaults; one chip (a
// program on a mesh sets its sharding).
CompileTarget compile_target(const PipelineOptions& options, const config::TestEntry& entry);

// One case's settings, resolved once from the CLI, its YAML entry and the
// defaults; the phases read it instead of resolving again.
struct CasePlan {
  CaseLayout layout;                        // its mesh on the arch
  CompileTarget target;                     // backend, chips, device settings
  comparators::ComparisonConfig comparison; // the checks of its outputs
  OpGoldenPlan op_golden;                   // per-op check / report
  int perf_iterations = 0;                  // timed executions (0: none)
};
CasePlan plan_case(const TestCase& test_case, const PipelineOptions& options);

// Runs one case in this process and returns its complete record. Never
// throws for model failures: they become the record's outcome.
reports::CaseResult run_case(const TestCase& test_case, const PipelineOptions& options,
                             const PhaseObserver& observer = {});

// The record's identity fields (id, model info, markers, expectation) filled
// from the case, before anything runs.
reports::CaseResult describe_case(const TestCase& test_case, const PipelineOptions& options);

}  // namespace meshtest::runner
