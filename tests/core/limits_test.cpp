// The per-tensor size limit (core/limits.h): exact byte counts per dtype
// (bfp8_b as its tiled layout stores it), the limit and its override, and
// overflow.
#include "core/limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/bfp8_layout.h"
#include "core/error.h"
#include "core/tensor.h"

namespace meshtest {
namespace {

using ::testing::HasSubstr;

class Limits : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("MESHTEST_MAX_TENSOR_BYTES"); }
};

TEST_F(Limits, BytesMatchWhatTheTensorTakes) {
  EXPECT_EQ(checked_tensor_bytes(DType::F32, {2, 3}, "t"), 24u);
  EXPECT_EQ(checked_tensor_bytes(DType::BF16, {5}, "t"), 10u);
  EXPECT_EQ(checked_tensor_bytes(DType::I64, {}, "t"), 8u);
  EXPECT_EQ(checked_tensor_bytes(DType::F32, {0, 1LL << 62}, "t"), 0u);
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{}, {5}, {33}, {1, 1}, {3, 40, 70}, {2, 2, 64, 32}}) {
    EXPECT_EQ(checked_tensor_bytes(DType::BFP8_B, shape, "t"), bfp8_b_storage_bytes(shape)) << shape.size();
  }
}

TEST_F(Limits, OverTheLimitNamesItAndHowToRaiseIt) {
  EXPECT_EQ(max_tensor_bytes(), kDefaultMaxTensorBytes);
  setenv("MESHTEST_MAX_TENSOR_BYTES", "100", 1);
  EXPECT_EQ(checked_tensor_bytes(DType::F32, {25}, "t"), 100u);
  try {
    checked_tensor_bytes(DType::F32, {26}, "weight 'w'");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "weight 'w': f32[26] needs 104 bytes, over the per-tensor limit of 100 bytes "
                 "(set MESHTEST_MAX_TENSOR_BYTES to raise it)");
  }
  EXPECT_THROW(Tensor(DType::F32, {26}), Error);  // host tensors are checked before allocating
}

TEST_F(Limits, OverflowAndNegativeDimensionsAreRefused) {
  EXPECT_THAT([] { checked_tensor_bytes(DType::F32, {1LL << 40, 1LL << 40}, "t"); },
              ::testing::ThrowsMessage<Error>(HasSubstr("needs more than 2^64 bytes")));
  EXPECT_THAT([] { checked_tensor_bytes(DType::F32, {4, -1}, "t"); },
              ::testing::ThrowsMessage<Error>(HasSubstr("t: negative dimension in f32[4,-1]")));
  setenv("MESHTEST_MAX_TENSOR_BYTES", "0", 1);
  EXPECT_THROW(max_tensor_bytes(), Error);
}

}  // namespace
}  // namespace meshtest
