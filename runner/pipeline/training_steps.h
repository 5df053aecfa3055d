// The training run mode of the one case pipeline (run mode `training`): the
// golden runs forward + backward on the CPU reference with its own gradient
// kernels (runtime/reference/reference_backward.h); the device compiles and
// runs the joint forward + backward graph made by the compiler's autodiff
// (compiler/autodiff.h), fed the same upstream gradient; the forward output
// and every parameter gradient are then judged by comparators/
// training_comparison.h. With `--optimizer-step sgd:LR` both sides also take
// one SGD step and the updated weights are compared too.
//
// The model is loaded with sdk::LoadOptions::training: layers take their
// model.train() form. A training-mode batch norm normalises with batch
// statistics and outputs its updated running statistics (outputs named
// sdk::kUpdatedBufferPrefix + buffer); the training graph keeps those outputs,
// the golden computes them too, they are compared by their update and never
// differentiated: a buffer that receives a gradient is a CompileError.
//
// Compiled before the golden (unlike inference): the joint graph is where a
// model that fits for inference runs out of device memory, and that answer
// costs no weights; the golden needs them all, in f32, with their gradients.
// Parallelism as for inference (runner/pipeline/parallel_setup.h): data
// parallel splits the inputs and the upstream gradient on dim 0 and
// replicates the weights, so each chip's partial weight gradients meet in
// all_reduce; tensor parallel splits the weights by the loader's shard spec
// and each gradient keeps its parameter's split.
#pragma once

#include <memory>

#include "config/test_config.h"
#include "runner/collection/test_case.h"
#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/run_mode_steps.h"

namespace meshtest::runner {

// Batch size of a training case unless its YAML sets `batch_size`.
constexpr int64_t kDefaultTrainingBatchSize = 2;

// batch_size (YAML, else kDefaultTrainingBatchSize) and seq_len (YAML, if set).
sdk::LoadOptions training_load_options(const config::TestEntry& entry);

// The upstream gradient of the differentiated output: standard normal from
// one fixed seed, so golden and device (and every run) get the same tensor.
Tensor training_seed_gradient(const Shape& output_shape);

// The learning rate of `--optimizer-step sgd:LR` (LR > 0); ParseError otherwise.
double parse_optimizer_step(const std::string& text);

std::unique_ptr<RunModeSteps> training_steps(const TestCase& test_case, const PipelineOptions& options);

}  // namespace meshtest::runner
