// The tiled bfp8_b layout: blocks are rows of 16x16 faces of 32x32 tiles, the
// last two dims padded to the tile, so an outlier coarsens only its own face row.
#include "core/bfp8_layout.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/device_program.h"
#include "core/dtype.h"
#include "core/tensor.h"

namespace meshtest {
namespace {

std::vector<float> bfp8_round_trip(const Shape& shape, const std::vector<float>& values) {
  return Tensor::from_f32(shape, values).to(DType::BFP8_B).to_f32_vector();
}

TEST(Bfp8Layout, BlocksAreFaceRowsOfTiles) {
  const Shape shape = {40, 40};  // 2x2 tiles, the right and bottom ones partly padding
  auto span = [&](int64_t index) {
    const Bfp8BlockSpan s = bfp8_b_block_span(shape, index);
    return std::vector<int64_t>{s.first, s.count};
  };
  EXPECT_EQ(span(0), (std::vector<int64_t>{0, 16}));           // tile (0,0), face 0, row 0
  EXPECT_EQ(span(1), (std::vector<int64_t>{40, 16}));          // face 0, row 1
  EXPECT_EQ(span(16), (std::vector<int64_t>{16, 16}));         // face 1 (top right), row 0
  EXPECT_EQ(span(32), (std::vector<int64_t>{16 * 40, 16}));    // face 2 (bottom left), row 0
  EXPECT_EQ(span(64), (std::vector<int64_t>{32, 8}));          // tile (0,1): columns 32..39, then padding
  EXPECT_EQ(span(64 + 16)[1], 0);                          // its face 1: columns 48.. are all padding
  EXPECT_EQ(span(128), (std::vector<int64_t>{32 * 40, 16}));   // tile (1,0), row 32
  EXPECT_EQ(span(128 + 8)[1], 0);                          // row 40: padding
  EXPECT_EQ(bfp8_b_block_count(shape), 4 * 64);
}

TEST(Bfp8Layout, AnOutlierDoesNotCoarsenTheNextRow) {
  // Rows of 8: a flat run of 16 would hold row 0 and row 1 together.
  const Shape shape = {32, 8};
  std::vector<float> values(32 * 8);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.01f * static_cast<float>(1 + i % 8) / 8.0f;
  const std::vector<float> quiet = bfp8_round_trip(shape, values);
  values[3] = 1000.0f;  // row 0
  const std::vector<float> loud = bfp8_round_trip(shape, values);
  for (size_t i = 8; i < values.size(); ++i) EXPECT_EQ(loud[i], quiet[i]) << i;
  EXPECT_EQ(loud[3], 1000.0f);
  EXPECT_EQ(loud[0], 0.0f);  // its own face-row neighbours do lose their bits
  // Row 1 keeps 7 bits relative to its own largest value (0.01), not to 1000.
  for (size_t i = 8; i < 16; ++i) EXPECT_NEAR(loud[i], values[i], 0.01 / 64) << i;
}

TEST(Bfp8Layout, ValuesExactPerRowRoundTrip) {
  // Integers |k| <= 127 times a per-row power of two fit 7-bit face-row blocks
  // exactly; rows of 70 (not a multiple of 16 or 32) and a batch dimension.
  const Shape shape = {2, 45, 70};
  std::vector<float> values;
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t r = 0; r < 45; ++r) {
      for (int64_t c = 0; c < 70; ++c) {
        values.push_back(std::ldexp(static_cast<float>((r * 31 + c * 17 + b) % 255 - 127), static_cast<int>(r % 7) - 3));
      }
    }
  }
  EXPECT_EQ(bfp8_round_trip(shape, values), values);
}

TEST(Bfp8Layout, StorageIsTilePadded) {
  EXPECT_EQ(bfp8_b_storage_bytes({32, 32}), 64 * kBfp8BlockBytes);
  EXPECT_EQ(bfp8_b_storage_bytes({33, 40}), 4 * 64 * kBfp8BlockBytes);
  EXPECT_EQ(bfp8_b_storage_bytes({5}), 64 * kBfp8BlockBytes);
  EXPECT_EQ(bfp8_b_storage_bytes({}), 64 * kBfp8BlockBytes);
  EXPECT_EQ(bfp8_b_storage_bytes({6, 40, 10}), 6 * 2 * 64 * kBfp8BlockBytes);  // a batch of 6 matrices
  // A conv2d weight [64, 16, 3, 3] tiles as the matrix [64, 144]: 2 x 5 tiles.
  EXPECT_EQ(bfp8_b_storage_bytes({64, 16, 3, 3}), 2 * 5 * 64 * kBfp8BlockBytes);
  EXPECT_EQ(bfp8_b_storage_bytes({0, 32}), 0u);
  EXPECT_EQ(static_cast<int64_t>(bfp8_b_storage_bytes({64, 16, 3, 3})), tile_padded_bytes({DType::BFP8_B, {64, 144}}));
  for (const Shape& shape : {Shape{33, 40}, Shape{1000, 2048}, Shape{64, 9}, Shape{2, 3, 40}}) {
    EXPECT_EQ(static_cast<int64_t>(Tensor(DType::BFP8_B, shape).nbytes()), tile_padded_bytes({DType::BFP8_B, shape}));
  }
  // Padding encodes as zero blocks.
  const Tensor q = Tensor::from_f32({1, 20}, std::vector<float>(20, 3.0f)).to(DType::BFP8_B);
  const auto* bytes = static_cast<const uint8_t*>(q.raw_data());
  for (int64_t b = 0; b < bfp8_b_block_count({1, 20}); ++b) {
    if (bfp8_b_block_span({1, 20}, b).count > 0) continue;
    for (size_t i = 0; i < kBfp8BlockBytes; ++i) ASSERT_EQ(bytes[b * static_cast<int64_t>(kBfp8BlockBytes) + static_cast<int64_t>(i)], 0) << b;
  }
}

}  // namespace
}  // namespace meshtest
