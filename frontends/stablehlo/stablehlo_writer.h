// The StableHLO writer: any meshtest Graph as a StableHLO module in MLIR's
// text form, spelled as `jax.jit(f).lower(...).as_text()` prints it (pretty
// form where an op has one, MLIR's generic form otherwise), for a StableHLO
// consumer (XLA's PJRT plugins compiling program format "mlir",
// stablehlo-opt) and for meshtest's own reader (round trip).
//
// The signature is the contract (PJRT passes arguments by position):
//   func.func public @main(<graph inputs, in graph.params order>,
//                          <weights, in graph.params order>)
// — "params order": the graph's parameters in their order, inputs first,
// then weights (stablehlo_argument_names() lists them). Each argument
// carries `meshtest.name = "<param name>"` (discardable; weights also
// `meshtest.kind = "weight"` with WriteOptions::mark_weights), and
// `mhlo.sharding = "<GSPMD sharding>"` when WriteOptions gives it a split.
// Results are the graph outputs in order, each `jax.result_info = "<name>"`.
// With inline_weights the weights are `stablehlo.constant`s instead (splat,
// or hex bytes), and @main takes the inputs alone.
//
// Dtypes: each value keeps its dtype (bf16 weights are bf16 arguments, and
// are stored as BF16 in the weights file); bfp8_b, a storage format with no
// StableHLO type, is written as f32 (the values it decodes to).
//
// Every op is written as the StableHLO ops its OpDef doc line means (see
// stablehlo_emitters.h for the table and each family file for the
// decompositions). Ops with no writing throw CompileError
// "stablehlo writer: op #N <name>: unsupported: <reason>".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/sharding.h"

namespace meshtest::frontends::stablehlo {

struct WriteOptions {
  // Weights as stablehlo.constant in @main instead of arguments.
  bool inline_weights = false;
  // Fused ops (gelu, rms_norm, layer_norm, sdpa) as
  // `stablehlo.composite "tenstorrent.<name>"` with a private decomposition
  // function (tt-xla's names and attributes), instead of inline decompositions;
  // embedding / embedding_backward as `meshtest.<name>` composites (their
  // gather / scatter differ from the op on out-of-range ids and in summation
  // order, so a reader needs the name to get the op back).
  bool composites = false;
  // The mesh of a sharded program. A global graph with `shardings` is written
  // for GSPMD: mhlo.num_partitions = chips. A graph holding collectives
  // (all_gather, ..., shard_slice: the shard pass's one-chip program) is
  // written as jax.pmap writes one: mhlo.num_replicas = chips, cross-replica
  // collectives over replica_groups of chip ids. Needed for either.
  std::optional<Mesh> mesh;
  // Parameter name -> its split over `mesh`: written as that argument's
  // `mhlo.sharding` (a graph of global shapes, as GSPMD takes it).
  std::map<std::string, Sharding> shardings;
  // Module name: `module @<name>` (sanitized); empty: "jit_" + graph.name.
  std::string module_name;
  // Weight arguments also carry `meshtest.kind = "weight"`, so a reader that
  // knows weights (meshtest's PJRT plugin, StablehloImport::weight_arguments)
  // gets them back as weights rather than inputs.
  bool mark_weights = false;
};

// The module text. Throws CompileError naming the op for anything it cannot write.
std::string write_stablehlo(const Graph& graph, const WriteOptions& options = {});

// The parameter names @main takes, in argument order (inputs, then weights
// unless inline_weights).
std::vector<std::string> stablehlo_argument_names(const Graph& graph, const WriteOptions& options = {});

// Writes every weight of `graph` (materialized) to the safetensors file
// `path`, each under its parameter name in the dtype its argument has
// (bfp8_b as f32). Throws meshtest::Error naming the file.
void write_stablehlo_weights(const Graph& graph, const std::string& path);

}  // namespace meshtest::frontends::stablehlo
