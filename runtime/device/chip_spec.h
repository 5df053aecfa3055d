// Static description of one simulated chip (from an arch profile).
#pragma once

#include <cstdint>
#include <string>

namespace meshtest::runtime {

struct ChipSpec {
  std::string arch = "n150";
  // Wormhole n150: 12 GB GDDR6, 8x10 Tensix grid (72 usable), 1464 KiB L1 per core.
  int64_t dram_bytes = 12LL * 1024 * 1024 * 1024;
  int64_t l1_bytes_per_core = 1464LL * 1024;
  int core_rows = 8;
  int core_cols = 9;

  int64_t l1_bytes_total() const { return l1_bytes_per_core * core_rows * core_cols; }
};

}  // namespace meshtest::runtime
