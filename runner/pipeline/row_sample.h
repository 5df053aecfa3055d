// The per-op check (as a check, not the report: OpThresholds::every_element)
// of a large op whose result rows or channels are computed independently, on
// a sample of them. An exact CPU re-run of every GEMM and convolution costs
// about what the golden's own forward costs, more than the rest of the
// per-op check together (docs/benchmarks.md "Op-level golden"), so:
//   linear, matmul         rows of the result (rows of x, or of the lhs in
//                          every batch)
//   conv2d                 output rows (each kept row's window of input
//                          rows, the first and last rows always: where
//                          the padding is read)
//   max_pool2d, avg_pool2d channels (planes of the input and the result)
// are re-run on the rows or channels a per-op draw keeps, and those result
// elements are held to every per-op figure as an unsampled op's are (PCC,
// norm ratio, atol, the accumulation bound of each element).
//
// The draw keeps one row of every group of kRowSampleEvery consecutive rows
// (of smaller groups in ops of fewer than kMinKeptRows * kRowSampleEvery
// rows: about kMinKeptRows rows), its place in the group drawn from a mix of
// the group's index with the op's position in the program and the chip, so
// the kept rows are spread over the op and different ops keep different
// rows: a kernel bug that touches some rows or channels (a tile edge, one
// lane of a vector) is seen in about that share of the ops it touches, and a
// bug of the kernel shows in the ops all over the model that use it. Ops of
// fewer than kMinSampledRows rows, reductions and the fused attention are
// checked whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/device_program.h"
#include "core/tensor.h"

namespace meshtest::runner {

inline constexpr int64_t kRowSampleEvery = 16;
inline constexpr int64_t kMinKeptRows = 8;
inline constexpr int64_t kMinSampledRows = 32;

struct RowSample {
  std::vector<Tensor> operands;  // the op's operands, those narrowed to the kept rows or channels replaced
  std::vector<bool> narrowed;    // per operand: replaced
  std::optional<Attrs> attrs;     // the attributes the narrowed op runs with, when not the op's
  Tensor result;                 // the device result's elements of those rows or channels
  int64_t kept = 0;              // rows or channels kept
  int64_t of = 0;                // of this many
};

// Whether row (channel) `i` of an op with `extent` of them is in its sample
// (a pure function of its arguments).
bool in_row_sample(int64_t i, int64_t extent, size_t op_index, int chip);

// The sample of an op, its operands and result as the device held them;
// nullopt when the op is checked whole (not a sampled kind, or too small).
std::optional<RowSample> sample_rows(const DeviceInstr& instr, size_t op_index, int chip,
                                     const std::vector<Tensor>& operands, const Tensor& result);

}  // namespace meshtest::runner
