// The modelled device time of a device program: a roofline per instruction
// on one simulated chip (ChipPerf), summed over the program. A mesh program
// is SPMD (every chip runs the same per-chip program, collectives
// synchronize), so its time is the per-chip sum with collectives costed as
// rings over their group's Ethernet links.
//
// Per instruction, time = max(matrix engine, vector engine, DRAM, L1, links)
// + a fixed dispatch overhead, and the largest term names what bounds it:
//   matrix  GEMM-class ops (matmul, linear, conv2d and its backward, the two
//           GEMMs of sdpa): 2·M·N·K flops at the peak for the weight dtype
//           and the instruction's math fidelity (ChipPerf);
//   vector  every other op's elements × a per-op cost (transcendentals,
//           softmax and norms take several SFPU passes);
//   DRAM/L1 the bytes of the instruction's operands and result in the memory
//           space the compiler planned for each buffer (tile-padded sizes);
//   links   collectives: ring all_gather / reduce_scatter / all_to_all move
//           (g-1)/g of the gathered tensor over one link, all_reduce twice that,
//           plus (g-1) hop latencies per ring pass.
// A model, not a measurement: it ranks configurations (dtype, fidelity,
// chips) and finds the ops that dominate; docs/how-to/perf.md compares it with
// published throughput.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/device_program.h"
#include "runtime/device/chip_spec.h"

namespace meshtest::runtime {

enum class Bound { Matrix, Vector, Dram, L1, Links, Overhead };
std::string_view bound_name(Bound bound);  // "matrix", "vector", "dram", "l1", "links", "overhead"

struct InstrCost {
  size_t index = 0;     // position in the program
  std::string op;       // op name
  std::string origin;   // the graph op it came from
  double seconds = 0;   // modelled, overhead included
  double flops = 0;     // matrix-engine flops
  double bytes = 0;     // DRAM + L1 bytes touched
  Bound bound = Bound::Overhead;
};

struct ProgramCost {
  double seconds = 0;             // per execution, one chip (= the mesh, SPMD)
  double matrix_flops = 0;
  std::vector<InstrCost> instrs;  // program order
  // The `n` costliest instructions, most costly first.
  std::vector<InstrCost> top(size_t n) const;
  // "conv2d 41% matrix, linear 22% dram, ..." by op kind: the share of modelled
  // time and the bound that dominates that kind's time; at most `n` kinds.
  std::string top_ops_text(size_t n) const;
};

ProgramCost model_program_cost(const DeviceProgram& program, const ChipSpec& chip);

}  // namespace meshtest::runtime
