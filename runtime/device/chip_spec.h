// Static description of one simulated chip (from an arch profile).
#pragma once

#include <cstdint>
#include <string>

namespace meshtest::runtime {

// What one chip can do per second, for the roofline cost model
// (runtime/device/cost_model.h). Figures are per chip; their sources are
// cited once, at the top of runtime/arch/profiles.yaml. Defaults: Wormhole.
struct ChipPerf {
  double clock_ghz = 1.0;
  // Matrix engine peaks (TFLOPS). `tflops_lofi` is one fidelity phase (the
  // vendor's FP8 figure); bf16 weights reach `tflops_bf16` at HiFi4 (the FP16
  // figure) and bfp8_b weights `tflops_bfp8` at HiFi2 (the BLOCKFP8 figure);
  // fewer phases are proportionally faster, never above `tflops_lofi`.
  double tflops_lofi = 262.0;
  double tflops_bfp8 = 148.0;
  double tflops_bf16 = 74.0;
  double dram_gb_per_s = 288.0;              // GDDR6 bandwidth
  double l1_bytes_per_cycle_per_core = 64;   // modelled (no published figure)
  double vector_elems_per_cycle_per_core = 32;  // SFPU lanes, modelled
  double eth_gb_per_s = 50.0;                // one chip-to-chip link, one direction
  double eth_latency_us = 1.0;               // per hop, modelled
  double op_overhead_us = 2.0;               // per device op dispatch, modelled
};

struct ChipSpec {
  std::string arch = "n150";
  // Wormhole n150: 12 GB GDDR6, 8x10 Tensix grid (72 usable), 1464 KiB L1 per core.
  int64_t dram_bytes = 12LL * 1024 * 1024 * 1024;
  int64_t l1_bytes_per_core = 1464LL * 1024;
  int core_rows = 8;
  int core_cols = 9;
  ChipPerf perf;

  int64_t l1_bytes_total() const { return l1_bytes_per_core * core_rows * core_cols; }
};

}  // namespace meshtest::runtime
