// Tiled storage layout of bfp8_b tensors, as Tensix hardware stores them: the
// last two dimensions are zero-padded to multiples of 32, every 32x32 tile is
// four 16x16 faces (top-left, top-right, bottom-left, bottom-right), and one
// shared-exponent block (core/dtype.h) holds the 16 values of one face row.
// Blocks are stored batch by batch, tile by tile (row-major over tiles), face
// by face, face row by face row. Ranks 0 and 1 count as one row. A rank-4
// tensor is a conv2d weight [O, C/g, KH, KW] (the only 4-D GEMM weight) and
// tiles as the GEMM matrix [O, C/g*KH*KW], as the compiler's tile-layout pass
// stores it (tiling 3x3 trailing dims would inflate it up to 1024 times).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace meshtest {

inline constexpr int64_t kTileSide = 32;  // tiles are kTileSide x kTileSide values
inline constexpr int64_t kFaceSize = 16;

// Where block `index` of a tensor's storage sits in its row-major values: the
// `count` values from `first` on (0..16: face-row cells past the last column,
// or rows past the last row, are padding).
struct Bfp8BlockSpan {
  int64_t first = 0;
  int64_t count = 0;
};

int64_t bfp8_b_block_count(const std::vector<int64_t>& shape);
Bfp8BlockSpan bfp8_b_block_span(const std::vector<int64_t>& shape, int64_t index);
// Bytes of a bfp8_b tensor of `shape` (tile-padded).
size_t bfp8_b_storage_bytes(const std::vector<int64_t>& shape);

// Encodes blocks [begin_block, end_block) of row-major `src` into `dst` (the
// whole tensor's storage); decodes the whole tensor into row-major `dst`.
void encode_bfp8_b_blocks(const float* src, const std::vector<int64_t>& shape, int64_t begin_block,
                          int64_t end_block, uint8_t* dst);
void decode_bfp8_b(const uint8_t* src, const std::vector<int64_t>& shape, float* dst);

}  // namespace meshtest
