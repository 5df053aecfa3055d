// The sample of a large op with independent rows: the kept rows (linear,
// matmul) or channels (conv2d, pooling) drawn per op, and the operands and
// device result narrowed to them by copying whole rows.
#include "runner/pipeline/row_sample.h"

#include <algorithm>
#include <cstring>

#include "core/dtype.h"
#include "core/rng.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runner {

namespace {

// The kept indices of [0, extent) (at least one).
std::vector<int64_t> draw(int64_t extent, size_t op_index, int chip) {
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < extent; ++i) {
    if (in_row_sample(i, extent, op_index, chip)) kept.push_back(i);
  }
  if (kept.empty()) kept.push_back(0);
  return kept;
}

// A conv's band of output rows: max(kMinKeptRows, rows / kRowSampleEvery)
// consecutive rows, at the top in a quarter of the ops, at the bottom in a
// quarter (where the padding is read) and anywhere in the rest.
struct ConvBand {
  int64_t first = 0, rows = 0;
};
ConvBand conv_band(int64_t out_rows, size_t op_index, int chip) {
  ConvBand band;
  band.rows = std::min(out_rows, std::max(kMinKeptRows, out_rows / kRowSampleEvery));
  const uint64_t pick = mix_seed(static_cast<uint64_t>(op_index), static_cast<uint64_t>(chip) + 1);
  const int64_t last_first = out_rows - band.rows;
  switch (pick % 4) {
    case 0: band.first = 0; break;
    case 1: band.first = last_first; break;
    default: band.first = static_cast<int64_t>((pick >> 8) % static_cast<uint64_t>(last_first + 1));
  }
  return band;
}

// `t` read as `batches` x `rows` rows of `row_elements` elements, the kept
// rows of every batch, shaped `shape`.
Tensor gather_rows(const Tensor& t, int64_t batches, int64_t rows, int64_t row_elements,
                   const std::vector<int64_t>& kept, Shape shape) {
  Tensor out = Tensor::uninitialized(t.dtype(), std::move(shape));
  const size_t row_bytes = static_cast<size_t>(row_elements) * dtype_size(t.dtype());
  const auto* from = static_cast<const unsigned char*>(t.raw_data());
  auto* to = static_cast<unsigned char*>(out.raw_data());
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t r : kept) {
      std::memcpy(to, from + static_cast<size_t>(b * rows + r) * row_bytes, row_bytes);
      to += row_bytes;
    }
  }
  return out;
}

Shape with_dim(Shape shape, int64_t axis, int64_t size) {
  shape[static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(shape.size()) : axis)] = size;
  return shape;
}

bool row_copyable(const Tensor& t) { return t.dtype() != DType::BFP8_B && dtype_size(t.dtype()) > 0; }

// A conv2d's band of output rows: its input rows (zero rows where the band
// reads the padding, written out) run as one image with no padding along the
// height, so the reference unrolls and multiplies only the band, and the
// weights are packed once; the result's band is contiguous in each plane.
std::optional<RowSample> sample_conv_rows(const DeviceInstr& instr, size_t op_index, int chip,
                                          const std::vector<Tensor>& operands, const Tensor& result) {
  const Tensor& x = operands[0];
  const Tensor& w = operands[1];
  if (x.rank() != 4 || w.rank() != 4 || result.rank() != 4) return std::nullopt;
  const runtime::reference::Conv2dGeometry g = runtime::reference::conv2d_geometry(x, w, instr.attrs);
  const int64_t batch = x.dim(0), channels = x.dim(1), out_channels = result.dim(1);
  if (result.dim(0) != batch || result.dim(2) != g.out_h || result.dim(3) != g.out_w) return std::nullopt;
  if (g.out_h < kMinSampledRows) return std::nullopt;
  const ConvBand band = conv_band(g.out_h, op_index, chip);
  const int64_t in_rows = (band.rows - 1) * g.sh + (g.kh - 1) * g.dh + 1;
  const size_t row_bytes = static_cast<size_t>(g.width) * dtype_size(x.dtype());
  Tensor slab = Tensor::uninitialized(x.dtype(), {batch, channels, in_rows, g.width});
  const auto* from = static_cast<const unsigned char*>(x.raw_data());
  auto* to = static_cast<unsigned char*>(slab.raw_data());
  for (int64_t plane = 0; plane < batch * channels; ++plane) {
    for (int64_t t = 0; t < in_rows; ++t, to += row_bytes) {
      const int64_t h = band.first * g.sh - g.ph + t;
      if (h < 0 || h >= g.height) {
        std::memset(to, 0, row_bytes);
      } else {
        std::memcpy(to, from + static_cast<size_t>(plane * g.height + h) * row_bytes, row_bytes);
      }
    }
  }
  RowSample s;
  s.operands = operands;
  s.narrowed.assign(operands.size(), false);
  s.operands[0] = std::move(slab);
  s.narrowed[0] = true;
  s.attrs = instr.attrs;
  s.attrs->set("padding", std::vector<int64_t>{0, g.pw});
  s.result = gather_rows(result, batch * out_channels, g.out_h, g.out_w,
                         [&] {
                           std::vector<int64_t> rows(static_cast<size_t>(band.rows));
                           for (int64_t i = 0; i < band.rows; ++i) rows[static_cast<size_t>(i)] = band.first + i;
                           return rows;
                         }(),
                         {batch, out_channels, band.rows, g.out_w});
  s.kept = band.rows;
  s.of = g.out_h;
  return s;
}

}  // namespace

bool in_row_sample(int64_t i, int64_t extent, size_t op_index, int chip) {
  const int64_t every = std::min(kRowSampleEvery, std::max<int64_t>(1, extent / kMinKeptRows));
  const uint64_t salt = mix_seed(static_cast<uint64_t>(op_index), static_cast<uint64_t>(chip));
  const int64_t group = i / every;
  // A group cut short at the end keeps its drawn place only if it has it.
  return i % every == static_cast<int64_t>(mix_seed(static_cast<uint64_t>(group), salt) % static_cast<uint64_t>(every));
}

std::optional<RowSample> sample_rows(const DeviceInstr& instr, size_t op_index, int chip,
                                     const std::vector<Tensor>& operands, const Tensor& result) {
  for (const Tensor& t : operands) {
    if (!row_copyable(t)) return std::nullopt;
  }
  if (!row_copyable(result) || operands.empty()) return std::nullopt;
  const bool pooling = instr.kind == OpKind::MaxPool2d || instr.kind == OpKind::AvgPool2d;
  if (!pooling && operands.size() < 2) return std::nullopt;
  const Tensor& a = operands[0];
  const Tensor& b = operands[pooling ? 0 : 1];
  RowSample s;
  s.operands = operands;
  s.narrowed.assign(operands.size(), false);
  auto narrow = [&s](size_t slot, Tensor t) {
    s.operands[slot] = std::move(t);
    s.narrowed[slot] = true;
  };
  if (instr.kind == OpKind::Linear) {  // rows of x: [M, K] x [N, K]^T
    if (a.rank() < 1 || b.rank() != 2 || result.rank() < 1) return std::nullopt;
    const int64_t k = a.dim(-1), n = result.dim(-1);
    if (k == 0 || n == 0) return std::nullopt;
    const int64_t m = a.numel() / k;
    if (m < kMinSampledRows || result.numel() != m * n) return std::nullopt;
    const std::vector<int64_t> kept = draw(m, op_index, chip);
    const int64_t ms = static_cast<int64_t>(kept.size());
    narrow(0, gather_rows(a, 1, m, k, kept, {ms, k}));
    s.result = gather_rows(result, 1, m, n, kept, {ms, n});
    s.kept = ms;
    s.of = m;
    return s;
  }
  if (instr.kind == OpKind::Matmul) {  // rows of the lhs in every batch: [B, M, K] x [.., K, N]
    if (a.rank() < 2 || result.rank() < 2 || result.rank() < a.rank()) return std::nullopt;
    const int64_t m = a.dim(-2), k = a.dim(-1), n = result.dim(-1);
    if (m < kMinSampledRows || k == 0 || n == 0) return std::nullopt;
    const int64_t batches = result.numel() / (m * n);
    if (a.numel() != batches * m * k) return std::nullopt;  // a broadcast lhs: checked whole
    const std::vector<int64_t> kept = draw(m, op_index, chip);
    const int64_t ms = static_cast<int64_t>(kept.size());
    narrow(0, gather_rows(a, batches, m, k, kept, with_dim(a.shape(), -2, ms)));
    s.result = gather_rows(result, batches, m, n, kept, with_dim(result.shape(), -2, ms));
    s.kept = ms;
    s.of = m;
    return s;
  }
  if (instr.kind == OpKind::Conv2d) {
    if (std::optional<RowSample> rows = sample_conv_rows(instr, op_index, chip, operands, result)) return rows;
    // A small map: output channels (the weight's rows, the result's planes).
    if (instr.attrs.get_int("groups", 1) != 1 || a.rank() != 4 || b.rank() != 4 || result.rank() != 4) {
      return std::nullopt;
    }
    const int64_t channels = b.dim(0);
    if (channels < kMinSampledRows || result.dim(1) != channels) return std::nullopt;
    const std::vector<int64_t> kept = draw(channels, op_index, chip);
    const int64_t cs = static_cast<int64_t>(kept.size());
    narrow(1, gather_rows(b, 1, channels, b.numel() / channels, kept, with_dim(b.shape(), 0, cs)));
    if (operands.size() > 2) {
      if (operands[2].numel() != channels) return std::nullopt;
      narrow(2, gather_rows(operands[2], 1, channels, 1, kept, {cs}));
    }
    s.result = gather_rows(result, result.dim(0), channels, result.dim(2) * result.dim(3), kept,
                           with_dim(result.shape(), 1, cs));
    s.kept = cs;
    s.of = channels;
    return s;
  }
  if (pooling) {  // channels: planes in and out
    if (a.rank() != 4 || result.rank() != 4 || result.dim(0) != a.dim(0) || result.dim(1) != a.dim(1)) {
      return std::nullopt;
    }
    const int64_t channels = a.dim(1);
    if (channels < kMinSampledRows) return std::nullopt;
    const std::vector<int64_t> kept = draw(channels, op_index, chip);
    const int64_t cs = static_cast<int64_t>(kept.size());
    narrow(0, gather_rows(a, a.dim(0), channels, a.dim(2) * a.dim(3), kept, with_dim(a.shape(), 1, cs)));
    s.result = gather_rows(result, result.dim(0), channels, result.dim(2) * result.dim(3), kept,
                           with_dim(result.shape(), 1, cs));
    s.kept = cs;
    s.of = channels;
    return s;
  }
  return std::nullopt;
}

}  // namespace meshtest::runner
