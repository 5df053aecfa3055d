// The decode phase of the LLM matrix (docs/how-to/select-tests.md): one new
// token against a real KV cache, on both sides. The case's model is the
// loader's decode graph (sdk::LmPhase::Decode); its past_key_values.<l>.*
// inputs are the present.<l>.* outputs of the loader's prefill graph (same
// options, phase Prefill) run on the prefill's own inputs:
//  - golden: the CPU reference runs the prefill, then the decode step on
//    that cache;
//  - device: the device runs the prefill (compiled for the same strategy),
//    then the decode step on the cache it returned.
// The cache enters the decode step in the layout the shard pass gave the
// prefill's present outputs (tensor parallel: split over the heads; data
// parallel: over the batch; 2-D: both), so its layout is part of the sharding.
// The device prefill's compile and run count in the execute phase's seconds;
// --compile-only compiles the decode step only.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/run_mode_steps.h"

namespace meshtest::runner {

// The decode step's past inputs from a prefill's named outputs: every
// present.X output becomes input past_key_values.X.
sdk::Inputs cache_inputs(const Graph& prefill, const std::vector<Tensor>& prefill_outputs);

// The decode step's sharding request: `decode`'s, with every
// past_key_values.X input in the split the shard pass gives the prefill's
// present.X output under `prefill_request`.
std::shared_ptr<const ShardingRequest> decode_sharding(const ShardingRequest& decode,
                                                                 const Graph& prefill,
                                                                 const ShardingRequest& prefill_request);

// `plan`: the case's (plan_case), whose layout and target the prefill shares.
std::unique_ptr<RunModeSteps> decode_steps(const TestCase& test_case, const PipelineOptions& options,
                                           const CasePlan& plan);

}  // namespace meshtest::runner
