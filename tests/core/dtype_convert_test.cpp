// Unit tests of the dtypes added for StableHLO (f16, f64, i8, i16, u8 .. u64):
// names, sizes and classes, f16 <-> f32/f64 rounding (ties, NaN, inf,
// denormals, overflow), one rounding from f64 and i64/u64 to f16/bf16, and
// Tensor::to with StableHLO convert semantics (float -> int truncates and
// saturates, NaN -> 0, int -> int wraps, x -> bool is x != 0), plus the
// dtype dispatch helper and a safetensors round trip of every dtype.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <vector>

#include "core/dtype.h"
#include "core/dtype_convert.h"
#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "core/graph_builder.h"
#include "core/ir_text.h"
#include "core/safetensors.h"
#include "core/tensor.h"

namespace meshtest {
namespace {

// A 1-d tensor of dtype D holding `values` (given in D's storage type).
template <DType D>
Tensor tensor_of(const std::vector<typename DTypeTag<D>::storage>& values) {
  Tensor t(D, {static_cast<int64_t>(values.size())});
  std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(values[0]));
  return t;
}

template <DType D>
std::vector<typename DTypeTag<D>::storage> values_of(const Tensor& t) {
  const auto* p = storage<DTypeTag<D>>(t);
  return std::vector<typename DTypeTag<D>::storage>(p, p + t.numel());
}

TEST(NewDtypes, NamesSizesAndClasses) {
  const std::vector<std::pair<DType, const char*>> names = {
      {DType::F16, "f16"}, {DType::F64, "f64"}, {DType::I8, "i8"},   {DType::I16, "i16"},
      {DType::U8, "u8"},   {DType::U16, "u16"}, {DType::U32, "u32"}, {DType::U64, "u64"}};
  for (const auto& [dtype, name] : names) {
    EXPECT_EQ(dtype_name(dtype), name);
    EXPECT_EQ(parse_dtype(name), dtype);
  }
  EXPECT_EQ(dtype_size(DType::F16), 2u);
  EXPECT_EQ(dtype_size(DType::F64), 8u);
  EXPECT_EQ(dtype_size(DType::U64), 8u);
  EXPECT_EQ(dtype_bits(DType::Bool), 1);
  EXPECT_EQ(dtype_bits(DType::U16), 16);
  EXPECT_TRUE(is_floating(DType::F16));
  EXPECT_TRUE(is_floating(DType::F64));
  EXPECT_TRUE(is_integer(DType::U8));
  EXPECT_TRUE(is_unsigned_integer(DType::U32));
  EXPECT_FALSE(is_unsigned_integer(DType::Bool));
  EXPECT_TRUE(is_signed_integer(DType::I8));
  EXPECT_FALSE(is_signed_integer(DType::U8));
  EXPECT_THROW(parse_dtype("ui8"), ParseError);
}

TEST(F16, ExactValuesAndSpecials) {
  EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);  // largest finite
  EXPECT_EQ(f32_to_f16(0.0f), 0x0000);
  EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_f16(INFINITY), 0x7c00);
  EXPECT_EQ(f32_to_f16(-INFINITY), 0xfc00);
  const uint16_t nan = f32_to_f16(-std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  EXPECT_EQ(nan & 0x8000, 0x8000);  // sign kept
  EXPECT_TRUE(std::isnan(f16_to_f32(nan)));
  EXPECT_EQ(f16_to_f32(0x7bff), 65504.0f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));  // smallest denormal
  EXPECT_EQ(f16_to_f32(0x03ff), std::ldexp(1023.0f, -24));  // largest denormal
  EXPECT_EQ(f16_to_f32(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_TRUE(std::signbit(f16_to_f32(0x8000)));
}

TEST(F16, RoundsToNearestEvenIncludingDenormalsAndOverflow) {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to the even 1.
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9: up.
  EXPECT_EQ(f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Just above the tie rounds up.
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);
  // Denormals: half the smallest denormal ties to 0; 1.5 of it ties to 2.
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(f32_to_f16(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(f32_to_f16(std::ldexp(3.0f, -25)), 0x0002);
  // Rounding up out of the denormals reaches the smallest normal.
  EXPECT_EQ(f32_to_f16(std::ldexp(1023.5f, -24)), 0x0400);
  // 65520 is the tie between 65504 and 2^16: rounds to even (inf).
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);
  // Every f16 value round-trips.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const auto h = static_cast<uint16_t>(bits);
    const float f = f16_to_f32(h);
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_f16(f), h) << std::hex << bits;
    ASSERT_EQ(f64_to_f16(static_cast<double>(f)), h) << std::hex << bits;
  }
}

TEST(F16, F64RoundsOnceNotThroughF32) {
  // 1 + 2^-11 + 2^-40: above the f16 tie, but f32 would round it to the tie
  // itself (then f16 would round down to 1).
  const double value = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(f64_to_f16(value), 0x3c01);
  EXPECT_EQ(f32_to_f16(static_cast<float>(value)), 0x3c00);
  // The same for bf16: 1 + 2^-8 + 2^-40.
  const double bvalue = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(f64_to_bf16(bvalue), 0x3f81);
  EXPECT_EQ(f32_to_bf16(static_cast<float>(bvalue)), 0x3f80);
  EXPECT_EQ(f64_to_bf16(1e300), 0x7f80);  // overflow -> inf
  EXPECT_EQ(f64_to_bf16(-1e-300), 0x8000);  // underflow -> -0
}

TEST(Convert, FloatToIntTruncatesSaturatesAndMapsNanToZero) {
  const Tensor f = Tensor::from_f32({7}, {1.9f, -1.9f, 300.0f, -300.0f, NAN, INFINITY, -0.5f});
  EXPECT_EQ(values_of<DType::I8>(f.to(DType::I8)), (std::vector<int8_t>{1, -1, 127, -128, 0, 127, 0}));
  EXPECT_EQ(values_of<DType::U8>(f.to(DType::U8)), (std::vector<uint8_t>{1, 0, 255, 0, 0, 255, 0}));
  const Tensor big = tensor_of<DType::F64>({1e30, -1e30, 18446744073709549568.0, 9223372036854775807.0});
  EXPECT_EQ(values_of<DType::U64>(big.to(DType::U64)),
            (std::vector<uint64_t>{UINT64_MAX, 0, 18446744073709549568ull, 9223372036854775808ull}));
  EXPECT_EQ(values_of<DType::I64>(big.to(DType::I64)),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN, INT64_MAX, INT64_MAX}));
}

TEST(Convert, IntToIntWrapsAndToBoolIsNonZero) {
  const Tensor i = Tensor::from_i64({5}, {-1, 256, 257, -129, 0});
  EXPECT_EQ(values_of<DType::U8>(i.to(DType::U8)), (std::vector<uint8_t>{255, 0, 1, 127, 0}));
  EXPECT_EQ(values_of<DType::I8>(i.to(DType::I8)), (std::vector<int8_t>{-1, 0, 1, 127, 0}));
  EXPECT_EQ(values_of<DType::U64>(i.to(DType::U64))[0], UINT64_MAX);
  EXPECT_EQ(values_of<DType::Bool>(i.to(DType::Bool)), (std::vector<uint8_t>{1, 1, 1, 1, 0}));
  // u64 above INT64_MAX keeps its value (not through a signed or double path).
  const Tensor u = tensor_of<DType::U64>({18446744073709551615ull, 9223372036854775809ull});
  EXPECT_EQ(values_of<DType::I64>(u.to(DType::I64)), (std::vector<int64_t>{-1, INT64_MIN + 1}));
  EXPECT_EQ(values_of<DType::U32>(u.to(DType::U32)), (std::vector<uint32_t>{UINT32_MAX, 1}));
  EXPECT_EQ(values_of<DType::F64>(u.to(DType::F64))[0], 18446744073709551616.0);
  EXPECT_EQ(values_of<DType::U64>(u.to(DType::F64).to(DType::U64))[0], UINT64_MAX);  // 2^64 saturates
  // Bool -> anything is 0/1, NaN -> bool is true.
  const Tensor b = tensor_of<DType::Bool>({1, 0});
  EXPECT_EQ(values_of<DType::F16>(b.to(DType::F16)), (std::vector<uint16_t>{0x3c00, 0}));
  EXPECT_EQ(values_of<DType::Bool>(Tensor::from_f32({2}, {NAN, -0.0f}).to(DType::Bool)), (std::vector<uint8_t>{1, 0}));
}

TEST(Convert, IntToNarrowFloatRoundsOnce) {
  // 2^60 + 2^52 + 1: the nearest bf16 is 2^60 + 2^53 (the +1 breaks the tie);
  // through double the +1 is lost and the tie goes to even (2^60).
  const int64_t v = (int64_t{1} << 60) + (int64_t{1} << 52) + 1;
  const uint16_t expected = f64_to_bf16(std::ldexp(1.0, 60) + std::ldexp(1.0, 53));
  EXPECT_EQ(values_of<DType::BF16>(Tensor::from_i64({1}, {v}).to(DType::BF16))[0], expected);
  EXPECT_EQ(values_of<DType::F16>(Tensor::from_i64({2}, {2049, 65520}).to(DType::F16)),
            (std::vector<uint16_t>{f32_to_f16(2048.0f), 0x7c00}));
}

TEST(Convert, FloatToFloatAcrossEveryPair) {
  const Tensor d = tensor_of<DType::F64>({0.1, -3.5, 1e-8, 70000.0, NAN});
  const Tensor h = d.to(DType::F16);
  EXPECT_EQ(values_of<DType::F16>(h)[0], f64_to_f16(0.1));
  EXPECT_EQ(values_of<DType::F16>(h)[3], 0x7c00);  // above f16's range
  EXPECT_EQ(values_of<DType::F64>(h.to(DType::F64))[1], -3.5);
  EXPECT_TRUE(std::isnan(values_of<DType::F64>(h.to(DType::F64))[4]));
  EXPECT_EQ(values_of<DType::F32>(d.to(DType::F32))[0], 0.1f);
  EXPECT_EQ(h.to(DType::BF16).to(DType::F32).to_f32_vector()[1], -3.5f);
  EXPECT_DOUBLE_EQ(d.element_as_double(2), 1e-8);
  EXPECT_EQ(h.element_as_double(1), -3.5);
}

TEST(DtypeDispatch, VisitsStorageAndRejectsBfp8) {
  size_t bytes = 0;
  for (DType d : kAllDTypes) {
    if (d == DType::BFP8_B) {
      EXPECT_THROW(visit_dtype(d, [](auto) { return 0; }), Error);
      continue;
    }
    visit_dtype(d, [&](auto tag) {
      EXPECT_EQ(decltype(tag)::dtype, d);
      bytes += sizeof(typename decltype(tag)::storage);
    });
  }
  EXPECT_EQ(bytes, 4u + 2 + 4 + 8 + 1 + 2 + 8 + 1 + 2 + 1 + 2 + 4 + 8);
  EXPECT_THROW(visit_integer_dtype(DType::F32, "test", [](auto) {}), Error);
  Tensor t(DType::U16, {1});
  EXPECT_THROW(storage<DTypeTag<DType::F16>>(t), Error);
  EXPECT_EQ(DTypeTag<DType::F16>::load(DTypeTag<DType::F16>::store(0.1f)), round_to_f16(0.1f));
}

TEST(NewDtypes, IrTextPrintsAndParsesEveryDtype) {
  GraphBuilder b("dtypes");
  for (DType d : kAllDTypes) {
    const std::string name(dtype_name(d));
    b.output("out_" + name, b.op(OpKind::Reshape, {b.input("in_" + name, d, {2, 3})}, {{"shape", Shape{3, 2}}}));
  }
  const Graph g = b.finish();
  const std::string text = print_graph(g);
  EXPECT_NE(text.find("u64[2,3]"), std::string::npos) << text;
  EXPECT_NE(text.find("f16[2,3]"), std::string::npos) << text;
  const Graph back = parse_graph(text);
  EXPECT_EQ(print_graph(back), text);
  for (size_t i = 0; i < std::size(kAllDTypes); ++i) EXPECT_EQ(back.type(back.outputs[i].value).dtype, kAllDTypes[i]);
}

TEST(Safetensors, EveryDtypeRoundTrips) {
  const std::string path = (std::filesystem::temp_directory_path() / "meshtest_dtypes_roundtrip.safetensors").string();
  std::map<std::string, Tensor> tensors;
  for (DType d : kAllDTypes) {
    if (d == DType::BFP8_B) continue;
    tensors[std::string(dtype_name(d))] = Tensor::from_f32({2, 3}, {0, 1, 2, 3, 100, 5}).to(d);
  }
  write_safetensors(path, tensors);
  const auto back = read_safetensors(path);
  std::filesystem::remove(path);
  ASSERT_EQ(back.size(), tensors.size());
  for (const auto& [name, t] : tensors) {
    const Tensor& r = back.at(name);
    ASSERT_EQ(r.dtype(), t.dtype()) << name;
    ASSERT_EQ(r.shape(), t.shape()) << name;
    EXPECT_EQ(std::memcmp(r.raw_data(), t.raw_data(), t.nbytes()), 0) << name;
  }
}

}  // namespace
}  // namespace meshtest
