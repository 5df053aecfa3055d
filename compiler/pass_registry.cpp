// The one registry of compiler passes, in default pipeline order. Adding a
// pass means adding one row here (and its file in compiler/passes/).
#include "compiler/pass.h"
#include "compiler/passes/passes.h"
#include "core/error.h"

namespace meshtest::compiler {

namespace {

bool always(const CompileOptions&) { return true; }
bool level1(const CompileOptions& o) { return o.optimization_level >= 1; }
bool sharded(const CompileOptions& o) { return o.sharding != nullptr; }
// const-eval folds weights from their global data: not on per-chip shards.
bool level1_unsharded(const CompileOptions& o) { return level1(o) && !sharded(o); }
bool fusion(const CompileOptions& o) { return o.optimization_level >= 1 && o.enable_fusion; }

}  // namespace

const std::vector<PassInfo>& pass_registry() {
  static const std::vector<PassInfo> registry = {
      {"verify", "Infer and check every op's shape and dtype; errors name the op", always, passes::verify, false},
      {"shard", "Propagate partition specs over the mesh, insert collectives, make the per-chip graph", sharded,
       passes::shard, false},
      {"decompose", "Rewrite ops the device lacks (batch_norm) into primitives it has", always, passes::decompose,
       false},
      {"fuse", "Pattern-fuse RMSNorm, GELU (erf/tanh), LayerNorm, softmax and attention (level >= 1)", fusion,
       passes::fuse, false},
      {"const-eval", "Fold weight-only subgraphs into new weights at compile time (level >= 1)", level1_unsharded,
       passes::const_eval, false},
      {"lower", "Lower the graph to a device program: one buffer per value, one instruction per op", always,
       passes::lower, false},
      {"lower-dtypes", "bf16 activations, bf16/bfp8_b GEMM weights, math fidelity on GEMMs", always,
       passes::lower_dtypes, true},
      {"tile-layout", "Pad buffers to 32x32 tiles and record their real device footprint", always, passes::tile_layout,
       true},
      {"plan-memory", "Liveness-based buffer release, peak DRAM per chip, L1 placement (level 2), OOM check", always,
       passes::plan_memory, true},
  };
  return registry;
}

const PassInfo* find_pass(std::string_view name) {
  for (const PassInfo& p : pass_registry()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

DeviceProgram& program_of(CompileUnit& unit, std::string_view pass) {
  if (!unit.program) {
    throw CompileError("pass '" + std::string(pass) + "' needs a device program: run 'lower' first");
  }
  return *unit.program;
}

}  // namespace meshtest::compiler
