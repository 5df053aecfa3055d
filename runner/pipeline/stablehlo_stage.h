// A case's graph as StableHLO (frontends/stablehlo/stablehlo_writer.h): the
// `frontend.stablehlo.mlir` stage `run --serialize DIR` writes beside the
// .mtir stages, and `meshtest export ID --format stablehlo --out DIR`'s
// DIR/<case folder>.mlir + DIR/<case folder>.safetensors (the weights, in
// @main's argument order after the inputs). The graph written is the one the
// case compiles (inference: the model's; training: the joint forward +
// backward graph; LLM cases: the phase's), global, with the case's shard
// specs as `mhlo.sharding` on its arguments.
#pragma once

#include <string>

#include "core/sharding.h"
#include "core/graph.h"
#include "runner/pipeline/compile_settings.h"

namespace meshtest::runner {

// Writes <case_dir>/frontend.stablehlo.mlir; a graph the writer cannot
// write leaves <case_dir>/frontend.stablehlo.error.txt with the reason
// instead (the case goes on: the stage is informative).
void dump_stablehlo_stage(const Graph& graph, const ShardingRequest* sharding, const std::string& case_dir);

// Writes <settings.stablehlo_export_dir>/<case folder>.mlir and .safetensors
// (weights as arguments) or the .mlir alone (inline weights). Throws
// meshtest::Error naming what could not be written.
void export_stablehlo(const std::string& test_id, const Graph& graph, const ShardingRequest* sharding,
                      const CompileSettings& settings);

}  // namespace meshtest::runner
