// Tiled face-row layout of bfp8_b tensors (see bfp8_layout.h).
#include "core/bfp8_layout.h"

#include <algorithm>

#include "core/dtype.h"

namespace meshtest {

namespace {

int64_t round_up(int64_t n, int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

// The tensor as batch x rows x cols (ranks 0 and 1: one row; rank 4, a
// conv2d weight [O, C/g, KH, KW]: the GEMM matrix [O, C/g*KH*KW]).
struct Matrices {
  int64_t batch = 1, rows = 1, cols = 1;
};

Matrices as_matrices(const std::vector<int64_t>& shape) {
  Matrices m;
  const size_t rank = shape.size();
  if (rank == 4) {
    m.rows = shape[0];
    m.cols = shape[1] * shape[2] * shape[3];
    return m;
  }
  if (rank >= 1) m.cols = shape[rank - 1];
  if (rank >= 2) m.rows = shape[rank - 2];
  for (size_t i = 0; i + 2 < rank; ++i) m.batch *= shape[i];
  return m;
}

constexpr int64_t kFaceRowsPerTile = 4 * kFaceSize;  // blocks per tile

}  // namespace

int64_t bfp8_b_block_count(const std::vector<int64_t>& shape) {
  const Matrices m = as_matrices(shape);
  return m.batch * (round_up(m.rows, kTileSide) / kTileSide) * (round_up(m.cols, kTileSide) / kTileSide) *
         kFaceRowsPerTile;
}

Bfp8BlockSpan bfp8_b_block_span(const std::vector<int64_t>& shape, int64_t index) {
  const Matrices m = as_matrices(shape);
  const int64_t tile_cols = round_up(m.cols, kTileSide) / kTileSide;
  const int64_t tiles_per_matrix = (round_up(m.rows, kTileSide) / kTileSide) * tile_cols;
  const int64_t tile = index / kFaceRowsPerTile;
  const int64_t face = (index % kFaceRowsPerTile) / kFaceSize;
  const int64_t face_row = index % kFaceSize;
  const int64_t matrix = tile / tiles_per_matrix;
  const int64_t tile_in_matrix = tile % tiles_per_matrix;
  const int64_t row = (tile_in_matrix / tile_cols) * kTileSide + (face / 2) * kFaceSize + face_row;
  const int64_t col = (tile_in_matrix % tile_cols) * kTileSide + (face % 2) * kFaceSize;
  Bfp8BlockSpan span;
  span.first = (matrix * m.rows + row) * m.cols + col;
  span.count = row < m.rows ? std::clamp<int64_t>(m.cols - col, 0, kFaceSize) : 0;
  return span;
}

size_t bfp8_b_storage_bytes(const std::vector<int64_t>& shape) {
  return static_cast<size_t>(bfp8_b_block_count(shape)) * kBfp8BlockBytes;
}

void encode_bfp8_b_blocks(const float* src, const std::vector<int64_t>& shape, int64_t begin_block,
                          int64_t end_block, uint8_t* dst) {
  for (int64_t b = begin_block; b < end_block; ++b) {
    const Bfp8BlockSpan span = bfp8_b_block_span(shape, b);
    encode_bfp8_b_block(src + span.first, static_cast<int>(span.count), dst + b * static_cast<int64_t>(kBfp8BlockBytes));
  }
}

void decode_bfp8_b(const uint8_t* src, const std::vector<int64_t>& shape, float* dst) {
  const int64_t blocks = bfp8_b_block_count(shape);
  for (int64_t b = 0; b < blocks; ++b) {
    const Bfp8BlockSpan span = bfp8_b_block_span(shape, b);
    decode_bfp8_b_block(src + b * static_cast<int64_t>(kBfp8BlockBytes), static_cast<int>(span.count), dst + span.first);
  }
}

}  // namespace meshtest
