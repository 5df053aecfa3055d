// Unit tests of core/tensor: shape helpers, construction, dtype conversions,
// reshaping, copies vs clones and typed element access.
#include "core/tensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"

namespace meshtest {
namespace {

TEST(ShapeTest, Helpers) {
  EXPECT_EQ(shape_numel({}), 1);
  EXPECT_EQ(shape_numel({2, 3, 4}), 24);
  EXPECT_EQ(shape_numel({2, 0, 4}), 0);
  EXPECT_EQ(shape_to_string({}), "[]");
  EXPECT_EQ(shape_to_string({1, 3, 224, 224}), "[1,3,224,224]");
  EXPECT_EQ(shape_strides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(shape_strides({5}), (std::vector<int64_t>{1}));
  EXPECT_TRUE(shape_strides({}).empty());
}

TEST(ShapeTest, NumelOverflowIsAnErrorButEmptyShapesAreNot) {
  const int64_t big = int64_t{1} << 62;
  EXPECT_EQ(shape_numel({big, 1}), big);
  EXPECT_THROW(shape_numel({big, 4}), Error);
  EXPECT_THROW(shape_numel({big, -4, 2}), Error);
  EXPECT_EQ(shape_numel({big, 4, 0}), 0);  // empty, even though a prefix product would overflow
}

TEST(TensorTest, ZeroFilledConstruction) {
  Tensor t(DType::F32, {2, 3});
  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.rank(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24u);
  EXPECT_EQ(t.dim(-1), 3);
  EXPECT_EQ(t.dim(0), 2);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<float>()[i], 0.0f);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
  EXPECT_FALSE(Tensor().defined());
  EXPECT_TRUE(Tensor(DType::F32, {0, 4}).defined());
  EXPECT_THROW(Tensor(DType::F32, {2, -1}), Error);
}

TEST(TensorTest, FromValuesChecksSize) {
  EXPECT_THROW(Tensor::from_f32({2, 2}, {1, 2, 3}), Error);
  EXPECT_THROW(Tensor::from_f32({}, {}), Error);
  EXPECT_THROW(Tensor::from_i64({3}, {1, 2}), Error);
  const Tensor s = Tensor::scalar_f32(2.5f);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.data<float>()[0], 2.5f);
}

TEST(TensorTest, F32ToBf16AndBack) {
  const Tensor f = Tensor::from_f32({4}, {1.0f + 0x1p-8f, 1.0f + 0x1p-7f + 0x1p-8f, -0.0f, 3.0f});
  const Tensor b = f.to(DType::BF16);
  EXPECT_EQ(b.dtype(), DType::BF16);
  EXPECT_EQ(b.nbytes(), 8u);
  EXPECT_EQ(b.data<uint16_t>()[0], 0x3F80u);  // tie to even
  EXPECT_EQ(b.data<uint16_t>()[1], 0x3F82u);  // tie to even (up)
  EXPECT_EQ(b.data<uint16_t>()[2], 0x8000u);
  const std::vector<float> back = b.to_f32_vector();
  EXPECT_EQ(back, (std::vector<float>{1.0f, 1.015625f, 0.0f, 3.0f}));
  EXPECT_TRUE(std::signbit(back[2]));
  EXPECT_EQ(b.element_as_double(3), 3.0);
}

TEST(TensorTest, FloatToIntegerTruncatesTowardZero) {
  const Tensor f = Tensor::from_f32({4}, {1.9f, -1.9f, 3.0f, -0.5f});
  const Tensor i = f.to(DType::I64);
  EXPECT_EQ(std::vector<int64_t>(i.data<int64_t>(), i.data<int64_t>() + 4), (std::vector<int64_t>{1, -1, 3, 0}));
  const Tensor i32 = f.to(DType::I32);
  EXPECT_EQ(i32.data<int32_t>()[1], -1);
  // bf16 -> i64 goes through the bf16 value (2.5 is exact in bf16).
  EXPECT_EQ(Tensor::from_f32({1}, {2.5f}).to(DType::BF16).to(DType::I64).data<int64_t>()[0], 2);
}

TEST(TensorTest, IntegerConversions) {
  const Tensor i = Tensor::from_i64({5}, {0, 5, -1, 16777217, -7});
  const Tensor f = i.to(DType::F32);
  EXPECT_EQ(f.to_f32_vector(), (std::vector<float>{0.0f, 5.0f, -1.0f, 16777216.0f, -7.0f}));
  const Tensor b = i.to(DType::Bool);
  EXPECT_EQ(std::vector<uint8_t>(b.data<uint8_t>(), b.data<uint8_t>() + 5), (std::vector<uint8_t>{0, 1, 1, 1, 1}));
  const Tensor i32 = i.to(DType::I32);
  EXPECT_EQ(i32.data<int32_t>()[4], -7);
  EXPECT_EQ(i32.to(DType::I64).data<int64_t>()[3], 16777217);
  EXPECT_EQ(b.to(DType::I64).data<int64_t>()[2], 1);
  EXPECT_EQ(b.to(DType::F32).to_f32_vector(), (std::vector<float>{0, 1, 1, 1, 1}));
}

TEST(TensorTest, FloatToBool) {
  const Tensor f = Tensor::from_f32({4}, {0.0f, -0.0f, 0.5f, -2.0f});
  const Tensor b = f.to(DType::Bool);
  EXPECT_EQ(std::vector<uint8_t>(b.data<uint8_t>(), b.data<uint8_t>() + 4), (std::vector<uint8_t>{0, 0, 1, 1}));
}

TEST(TensorTest, Bfp8Conversion) {
  std::vector<float> values;
  for (int i = 0; i < 40; ++i) values.push_back(static_cast<float>(i % 8) * 0.125f);
  const Tensor f = Tensor::from_f32({5, 8}, values);
  const Tensor q = f.to(DType::BFP8_B);
  EXPECT_EQ(q.nbytes(), 64 * kBfp8BlockBytes);  // one 32x32 tile: 4 faces x 16 face rows
  EXPECT_EQ(q.to_f32_vector(), values);
  EXPECT_THROW(q.element_as_double(0), Error);
}

TEST(TensorTest, SameDtypeConversionSharesStorage) {
  const Tensor f = Tensor::from_f32({2}, {1, 2});
  EXPECT_EQ(f.to(DType::F32).raw_data(), f.raw_data());
}

TEST(TensorTest, ReshapedSharesDataAndChecksCount) {
  Tensor t = Tensor::from_f32({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor r = t.reshaped({3, 2});
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(r.raw_data(), t.raw_data());
  EXPECT_EQ(t.reshaped({6}).data<float>()[5], 5.0f);
  EXPECT_THROW(t.reshaped({4, 2}), Error);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
}

TEST(TensorTest, CopiesShareClonesDoNot) {
  Tensor t = Tensor::from_f32({3}, {1, 2, 3});
  Tensor copy = t;
  Tensor deep = t.clone();
  EXPECT_NE(deep.raw_data(), t.raw_data());
  copy.data<float>()[0] = 10.0f;
  deep.data<float>()[1] = 20.0f;
  EXPECT_EQ(t.data<float>()[0], 10.0f);
  EXPECT_EQ(t.data<float>()[1], 2.0f);
  EXPECT_EQ(deep.data<float>()[0], 1.0f);
  EXPECT_EQ(Tensor(DType::I64, {0}).clone().numel(), 0);
}

TEST(TensorTest, TypedAccessChecksDtype) {
  Tensor f(DType::F32, {2});
  EXPECT_NO_THROW(f.data<float>());
  EXPECT_THROW(f.data<int64_t>(), Error);
  EXPECT_THROW(f.data<uint16_t>(), Error);
  const Tensor b(DType::BF16, {2});
  EXPECT_NO_THROW(b.data<uint16_t>());
  EXPECT_THROW(b.data<float>(), Error);
  const Tensor q(DType::BFP8_B, {2});
  EXPECT_THROW(q.data<uint8_t>(), Error);  // bfp8_b is raw bytes, not bool
  try {
    f.data<int32_t>();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), testing::HasSubstr("f32"));
    EXPECT_THAT(e.what(), testing::HasSubstr("i32"));
  }
}

}  // namespace
}  // namespace meshtest
