// The inference run mode of the one case pipeline: the golden is the CPU
// reference of the model's forward pass (run before compiling), the device
// compiles the model itself, and every graph output is compared.
#pragma once

#include <memory>

#include "config/test_config.h"
#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/run_mode_steps.h"

namespace meshtest::runner {

std::unique_ptr<RunModeSteps> inference_steps(const config::TestEntry& entry, const PipelineOptions& options);

// How an inference case loads its model: the YAML `seq_len` (e.g. a shorter
// sequence for a real-size model), else the loader's own.
sdk::LoadOptions inference_load_options(const config::TestEntry& entry);

}  // namespace meshtest::runner
