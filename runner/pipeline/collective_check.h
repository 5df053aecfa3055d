// The per-op check of a collective on a mesh (op-level golden, op_golden.h).
// A collective's result on one chip depends on every chip of its group, so
// it is checked once all chips have run it: each chip's result against the
// f32 reference of its group's operands —
//   all_reduce       the group's sum,
//   reduce_scatter   the member's block of the group's sum,
//   all_gather       the members' operands joined in rank order,
//   all_to_all       block r of every member's operand, joined,
//   shard_slice      block r of its own operand (r: the chip's rank).
// A sum of bf16 shards added in f32 and rounded once is within half an ulp
// and its errors are spread as rounding's are, so a reduction that rounds
// its partial sums (bf16 accumulation across chips) is held to the same ulp
// bound and error spread as the normalizations (op_golden.h); a data
// movement must be exact.
#pragma once

#include <string>
#include <vector>

#include "core/device_program.h"
#include "core/sharding.h"
#include "core/tensor.h"

namespace meshtest::runner {

struct OpThresholds;
struct OpGoldenRow;

// One collective, every chip's operand and result (shared storage, by chip).
struct CollectiveToCheck {
  size_t index = 0;
  const DeviceInstr* instr = nullptr;  // in the program, which outlives the check
  std::string layer;
  Mesh mesh;
  std::vector<Tensor> operands;  // operand 0 of each chip
  std::vector<Tensor> results;
};

// Whether check_collective checks this op kind.
bool is_checked_collective(OpKind kind);
// One row per chip.
std::vector<OpGoldenRow> check_collective(const CollectiveToCheck& c, const OpThresholds& thresholds);

}  // namespace meshtest::runner
