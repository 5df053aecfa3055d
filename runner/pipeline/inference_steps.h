// The inference run mode of the one case pipeline: the golden is the CPU
// reference of the model's forward pass (run before compiling), the device
// compiles the model itself, and every graph output is compared.
#pragma once

#include <memory>

#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/run_mode_steps.h"

namespace meshtest::runner {

std::unique_ptr<RunModeSteps> inference_steps(const PipelineOptions& options);

}  // namespace meshtest::runner
