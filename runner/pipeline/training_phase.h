// The training case of the per-case pipeline (run mode `training`): the
// golden runs forward + backward on the CPU reference with its own gradient
// kernels (runtime/reference/reference_backward.h); the device compiles and
// runs the joint forward + backward graph made by the compiler's autodiff
// (compiler/autodiff.h), fed the same upstream gradient; then the forward
// output and every parameter gradient are compared with the case's
// comparators, and the sets of parameters without a gradient must agree.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "comparators/metrics.h"
#include "config/test_config.h"
#include "discovery/loader_sdk.h"
#include "reports/case_result.h"
#include "runner/pipeline/case_pipeline.h"
#include "runtime/reference/reference_backward.h"

namespace meshtest::runner {

// Batch size of a training case unless its YAML sets `batch_size`.
constexpr int64_t kDefaultTrainingBatchSize = 2;

// batch_size (YAML, else kDefaultTrainingBatchSize) and seq_len (YAML, if set).
sdk::LoadOptions training_load_options(const config::TestEntry& entry);

// The upstream gradient of the differentiated output: standard normal from
// one fixed seed, so golden and device (and every run) get the same tensor.
Tensor training_seed_gradient(const Shape& output_shape);

// What the device returned for a training graph.
struct DeviceTraining {
  Tensor forward;                             // the differentiated output
  std::vector<std::string> with_gradient;     // parameter names ...
  std::vector<Tensor> gradients;              // ... and their gradients, index for index
  std::vector<std::string> without_gradient;  // parameters the compiler gave no gradient
  std::vector<Tensor> updated;                // --optimizer-step: weights after the step, as `gradients`
};

struct TrainingComparison {
  bool passed = true;
  // The first failure: "output 'logits': PCC ..." or "gradient of
  // layer1.0.conv1.weight: PCC 0.41 < required 0.99", or the parameters whose
  // gradient exists on one side only.
  std::string message;
  std::string failed_pass;  // "FORWARD" (the forward output failed), "BACKWARD" (a gradient or
                            // an updated weight did), "" (passed)
  // The forward output (kind "output") then one per parameter in the
  // golden's order (kind "gradient", named by the parameter), then with
  // --optimizer-step one per parameter (kind "updated_weight").
  std::vector<reports::OutputResult> results;
  double min_pcc = 1.0;  // over the output and the gradients judged by PCC (not vanishing ones)
  double max_atol = 0.0;
  double max_rel_l2 = 0.0;
};

// A golden gradient whose largest |element| is at most kVanishingGradient x
// the largest gradient element of the model is zero in exact arithmetic (what
// is left is f32 rounding). Its PCC against the device's bf16 rounding noise
// means nothing, so it is not judged by PCC: the device's largest |element|
// must be at most kVanishingGradientDevice x that same scale. (bert_base:
// key biases 1e-10 of the scale in the golden, 6e-6 on the device.)
constexpr double kVanishingGradient = 1e-6;
constexpr double kVanishingGradientDevice = 1e-4;

// PCC cannot see a gradient that is off by a factor (a VJP rule that scales),
// so a gradient judged by PCC must also have an L2 norm within this fraction
// of the golden's. bf16 noise moves the norm by a few percent at most (noise
// with PCC 0.97 adds about 3%); a factor of 1.5 moves it by 50%.
constexpr double kGradientNormTolerance = 0.2;

// Compares the device's training results with the golden's: the forward
// output and every gradient with `config`'s checks (vanishing gradients as
// above), the sets of parameters with a gradient, and with an optimizer step
// every updated weight (`golden_updated`, index for index with
// golden.with_gradient; empty: no step) with the same checks.
TrainingComparison compare_training(const runtime::ReferenceTraining& golden, const DeviceTraining& device,
                                    const comparators::ComparisonConfig& config,
                                    const std::vector<Tensor>& golden_updated = {});

// The learning rate of `--optimizer-step sgd:LR` (LR > 0); ParseError otherwise.
double parse_optimizer_step(const std::string& text);

// How a training case's phases ended short of a verdict, or the verdict.
struct TrainingRun {
  std::optional<TrainingComparison> comparison;  // nullopt: stopped before executing
  std::string skip_reason;  // non-empty: the case cannot run on this mesh (skipped); empty + no
                            // comparison: --compile-only stopped it after compiling
};

// Runs the phases of a training case — load_model, load_inputs, compile,
// golden, execute, compare — announcing each through `enter`, timing them
// into record.seconds and filling the compile and device fields of `record`.
// Parallelism as for inference (runner/pipeline/parallel_setup.h): data parallel
// builds the model at the enlarged batch, splits the inputs and the upstream
// gradient on dim 0 and replicates the weights, so each chip's partial weight
// gradients meet in all_reduce; tensor parallel splits the weights by the
// loader's shard spec and each gradient keeps its parameter's split; both
// compared against the one CPU golden of the whole model. Stops after
// compiling under --compile-only (without materializing weights or running
// the golden). Throws when a phase before compare fails (the caller maps the
// last phase entered to the bring-up status; the joint graph not fitting the
// chip is an OutOfMemoryError from compile).
TrainingRun run_training_phases(const TestCase& test_case, const PipelineOptions& options,
                                const comparators::ComparisonConfig& comparison, const std::function<void(Phase)>& enter,
                                reports::CaseResult& record);

}  // namespace meshtest::runner
