// The declared reasons why some device paths cannot be reached by the zoo,
// and the compiler's rewrite counters (see coverage_reasons.h).
#include "runner/cli/coverage_reasons.h"

#include <algorithm>
#include <map>

#include "core/ops.h"

namespace meshtest::runner {

namespace {

// Items declared one by one: reaching one makes its reason stale.
const std::map<std::string, std::string, std::less<>>& by_name() {
  static const std::map<std::string, std::string, std::less<>> reasons = {
      {"log", "no zoo model computes it on the device (losses are the host's); only ONNX / StableHLO imports emit it"},
      {"sqrt", "no zoo model computes it outside a fused norm; only ONNX / StableHLO imports emit it"},
      {"reduce_max",
       "native loaders build softmax as one op and the StableHLO importer's reductions are `reduce`: only ONNX "
       "imports emit it"},
      {"avg_pool2d", "no zoo model pools by average over windows (resnet and mobilenet_v2 use global_avg_pool2d)"},
      {"avg_pool2d_backward", "the backward of avg_pool2d, which no zoo model uses"},
      {"batch_norm",
       "the decompose pass rewrites every batch_norm into primitives before lowering, so no program holds it"},
      {"matmul[weights=bfp8_b]",
       "reachable only by gpt2 (the one zoo model whose weights are matmul operands) with bfp8_b weights, which the "
       "selections leave out: its graph read back from StableHLO does not run bit-identically to the graph itself "
       "(tests/frontends/stablehlo_roundtrip_test.cpp), a difference not yet explained"},
      {"all_to_all",
       "the shard pass inserts all_gather, reduce_scatter, all_reduce and shard_slice, never all_to_all: only IR "
       "written with it reaches it (tests/runtime_mesh checks the collective)"},
      {"pass:fuse.softmax",
       "matches a decomposed softmax (exp, reduce_sum, div): native loaders build softmax as one op and StableHLO "
       "reductions import as `reduce`, so only ONNX imports fire it (tests/filecheck/fuse_attention.mtir)"},
  };
  return reasons;
}

// "linear" of "linear[fidelity=LoFi]".
std::string_view op_of(std::string_view item) { return item.substr(0, item.find('[')); }

bool is_stablehlo_op(std::string_view op) {
  const std::vector<OpKind>& ops = stablehlo_primitive_ops();
  return std::any_of(ops.begin(), ops.end(), [op](OpKind k) { return op_name(k) == op; });
}

}  // namespace

std::optional<UnreachableReason> unreachable_reason(std::string_view item) {
  if (const auto it = by_name().find(item); it != by_name().end()) return UnreachableReason{it->second, true};
  if (item.rfind("pass:", 0) != 0 && is_stablehlo_op(op_of(item))) {
    return UnreachableReason{
        "StableHLO-only op that models/jax do not use (kernel checked op by op: tests/runtime_device)", false};
  }
  return std::nullopt;
}

const std::vector<std::string_view>& pass_rewrite_counters() {
  static const std::vector<std::string_view> counters = {
      "decompose.batch_norm",
      "fuse.gelu",
      "fuse.softmax",
      "fuse.layer_norm",
      "fuse.rms_norm",
      "fuse.sdpa",
      "const-eval.ops_folded",
      "lower-dtypes.bfp8_weights",
      "lower-dtypes.reduced_fidelity_gemms",
      "shard.collectives",
      "shard.fallbacks",
      "plan-memory.l1_buffers",
  };
  return counters;
}

}  // namespace meshtest::runner
