// Reference kernels of the StableHLO elementwise ops and the existing
// elementwise ops on the new dtypes: shifts by the bit width or more,
// remainder signs, popcnt/clz, compare TOTALORDER with -0.0 and NaN,
// round_afz vs round_even at .5, integer power with negative exponents,
// is_finite, wrap-around, StableHLO division, f64 computed in f64 and f16
// rounded after every op.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "reference_test_util.h"

namespace meshtest::runtime {
namespace {

using testing::run_op;

template <DType D>
Tensor make(const Shape& shape, const std::vector<typename DTypeTag<D>::storage>& values) {
  Tensor t(D, shape);
  std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(values[0]));
  return t;
}

template <DType D>
std::vector<typename DTypeTag<D>::storage> values(const Tensor& t) {
  const auto* p = storage<DTypeTag<D>>(t);
  return {p, p + t.numel()};
}

Tensor f64(const std::vector<double>& v) { return make<DType::F64>({static_cast<int64_t>(v.size())}, v); }
Tensor i32(const std::vector<int32_t>& v) { return make<DType::I32>({static_cast<int64_t>(v.size())}, v); }
Tensor i8(const std::vector<int8_t>& v) { return make<DType::I8>({static_cast<int64_t>(v.size())}, v); }
Tensor u8(const std::vector<uint8_t>& v) { return make<DType::U8>({static_cast<int64_t>(v.size())}, v); }

TEST(StablehloShifts, ByTheBitWidthOrMore) {
  const Tensor x = i8({-128, -1, 64, 1});
  const Tensor by = i8({8, 7, 1, -1});
  EXPECT_EQ(values<DType::I8>(run_op(OpKind::ShiftLeft, {x, by})), (std::vector<int8_t>{0, -128, -128, 0}));
  EXPECT_EQ(values<DType::I8>(run_op(OpKind::ShiftRightArithmetic, {x, by})), (std::vector<int8_t>{-1, -1, 32, 0}));
  EXPECT_EQ(values<DType::I8>(run_op(OpKind::ShiftRightLogical, {x, by})), (std::vector<int8_t>{0, 1, 32, 0}));
  const Tensor u = u8({255, 128});
  const Tensor ub = u8({200, 7});
  EXPECT_EQ(values<DType::U8>(run_op(OpKind::ShiftRightArithmetic, {u, ub})), (std::vector<uint8_t>{255, 255}));
  EXPECT_EQ(values<DType::U8>(run_op(OpKind::ShiftRightLogical, {u, ub})), (std::vector<uint8_t>{0, 1}));
}

TEST(StablehloRemainder, TakesTheDividendsSign) {
  EXPECT_EQ(values<DType::I32>(run_op(OpKind::Remainder, {i32({7, -7, 7, -7, 5, INT32_MIN}), i32({3, 3, -3, -3, 0, -1})})),
            (std::vector<int32_t>{1, -1, 1, -1, 5, 0}));
  const Tensor r = run_op(OpKind::Remainder, {f64({5.5, -5.5, 1.0}), f64({2.0, 2.0, 0.0})});
  EXPECT_EQ(values<DType::F64>(r)[0], 1.5);
  EXPECT_EQ(values<DType::F64>(r)[1], -1.5);
  EXPECT_TRUE(std::isnan(values<DType::F64>(r)[2]));
}

TEST(StablehloBits, PopcntClzNotAndBitwise) {
  EXPECT_EQ(values<DType::I8>(run_op(OpKind::Popcnt, {i8({-1, 0, 5})})), (std::vector<int8_t>{8, 0, 2}));
  EXPECT_EQ(values<DType::I8>(run_op(OpKind::Clz, {i8({-1, 0, 1})})), (std::vector<int8_t>{0, 8, 7}));
  EXPECT_EQ(values<DType::I32>(run_op(OpKind::Clz, {i32({1})})), (std::vector<int32_t>{31}));
  EXPECT_EQ(values<DType::U8>(run_op(OpKind::Not, {u8({0, 255})})), (std::vector<uint8_t>{255, 0}));
  const Tensor b = make<DType::Bool>({2}, {0, 1});
  EXPECT_EQ(values<DType::Bool>(run_op(OpKind::Not, {b})), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(values<DType::U8>(run_op(OpKind::Xor, {u8({0xf0, 3}), u8({0xff, 1})})), (std::vector<uint8_t>{0x0f, 2}));
  EXPECT_EQ(values<DType::Bool>(run_op(OpKind::And, {b, make<DType::Bool>({2}, {1, 1})})),
            (std::vector<uint8_t>{0, 1}));
}

TEST(StablehloCompare, TotalOrderSeparatesSignedZerosAndNans) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor a = f64({-0.0, nan, nan, 1.0, -nan});
  const Tensor b = f64({0.0, nan, INFINITY, nan, -INFINITY});
  auto cmp = [&](const char* direction, const char* type) {
    return values<DType::Bool>(
        run_op(OpKind::Compare, {a, b}, {{"direction", std::string(direction)}, {"compare_type", std::string(type)}}));
  };
  EXPECT_EQ(cmp("LT", "TOTALORDER"), (std::vector<uint8_t>{1, 0, 0, 1, 1}));
  EXPECT_EQ(cmp("EQ", "TOTALORDER"), (std::vector<uint8_t>{0, 1, 0, 0, 0}));
  EXPECT_EQ(cmp("EQ", "FLOAT"), (std::vector<uint8_t>{1, 0, 0, 0, 0}));
  EXPECT_EQ(cmp("NE", "FLOAT"), (std::vector<uint8_t>{0, 1, 1, 1, 1}));
  // Unsigned integers compare as unsigned.
  EXPECT_EQ(values<DType::Bool>(run_op(OpKind::Compare, {u8({255}), u8({1})}, {{"direction", std::string("GT")}})),
            (std::vector<uint8_t>{1}));
}

TEST(StablehloRounding, HalfwayCases) {
  const Tensor x = f64({0.5, 1.5, 2.5, -0.5, -2.5});
  EXPECT_EQ(values<DType::F64>(run_op(OpKind::RoundAfz, {x})), (std::vector<double>{1, 2, 3, -1, -3}));
  EXPECT_EQ(values<DType::F64>(run_op(OpKind::RoundEven, {x})), (std::vector<double>{0, 2, 2, -0.0, -2}));
  testing::expect_f32(run_op(OpKind::RoundEven, {Tensor::from_f32({2}, {2.5f, 3.5f})}), {2}, {2, 4}, 0);
}

TEST(StablehloPower, IntegersBySquaringWithNegativeExponents) {
  EXPECT_EQ(values<DType::I32>(run_op(OpKind::Power, {i32({2, 1, -1, -1, 2, 0, 3}), i32({10, -5, -3, -4, -1, 0, 40})})),
            (std::vector<int32_t>{1024, 1, -1, 1, 0, 1, 689956897}));  // 3^40 mod 2^32
  EXPECT_EQ(values<DType::U8>(run_op(OpKind::Power, {u8({3}), u8({5})})), (std::vector<uint8_t>{243}));
  EXPECT_EQ(values<DType::F64>(run_op(OpKind::Power, {f64({2.0}), f64({-2.0})})), (std::vector<double>{0.25}));
}

TEST(StablehloIsFinite, BoolResult) {
  const Tensor r = run_op(OpKind::IsFinite, {f64({1.0, INFINITY, -INFINITY, std::nan(""), -0.0})});
  ASSERT_EQ(r.dtype(), DType::Bool);
  EXPECT_EQ(values<DType::Bool>(r), (std::vector<uint8_t>{1, 0, 0, 0, 1}));
}

TEST(StablehloMinMax, NanWinsAndNegativeZeroIsSmaller) {
  const Tensor a = f64({-0.0, 0.0, std::nan(""), 1.0});
  const Tensor b = f64({0.0, -0.0, 1.0, 2.0});
  const auto mn = values<DType::F64>(run_op(OpKind::Minimum, {a, b}));
  EXPECT_TRUE(std::signbit(mn[0]) && std::signbit(mn[1]));
  EXPECT_TRUE(std::isnan(mn[2]));
  EXPECT_EQ(mn[3], 1.0);
  const auto mx = values<DType::F64>(run_op(OpKind::Maximum, {a, b}));
  EXPECT_FALSE(std::signbit(mx[0]) || std::signbit(mx[1]));
  EXPECT_EQ(values<DType::I8>(run_op(OpKind::Minimum, {i8({-5, 3}), i8({2, -7})})), (std::vector<int8_t>{-5, -7}));
}

TEST(StablehloSelectClamp, BroadcastScalars) {
  const Tensor pred = make<DType::Bool>({3}, {1, 0, 1});
  EXPECT_EQ(values<DType::I8>(run_op(OpKind::Select, {pred, i8({1, 2, 3}), i8({-1, -2, -3})})),
            (std::vector<int8_t>{1, -2, 3}));
  EXPECT_EQ(values<DType::I32>(run_op(OpKind::Clamp, {i32({0}), i32({-5, 5, 50}), i32({10})})),
            (std::vector<int32_t>{0, 5, 10}));
  EXPECT_THROW(run_op(OpKind::Select, {i8({1, 0, 1}), i8({1, 2, 3}), i8({1, 2, 3})}), Error);
}

TEST(StablehloBitcast, WidthChangesAddAndConsumeADimension) {
  const Tensor x = Tensor::from_f32({2}, {1.0f, -2.0f});
  const Tensor bits = run_op(OpKind::BitcastConvert, {x}, {{"dtype", std::string("u16")}, {"shape", Shape{2, 2}}});
  EXPECT_EQ(values<DType::U16>(bits), (std::vector<uint16_t>{0x0000, 0x3f80, 0x0000, 0xc000}));
  const Tensor back = run_op(OpKind::BitcastConvert, {bits}, {{"dtype", std::string("f32")}, {"shape", Shape{2}}});
  testing::expect_f32(back, {2}, {1.0f, -2.0f}, 0);
  // f16 operands are read as their own bits, not as the f32 the reference holds.
  const Tensor h = make<DType::F16>({1}, {0x3c00});
  EXPECT_EQ(values<DType::I16>(run_op(OpKind::BitcastConvert, {h}, {{"dtype", std::string("i16")}, {"shape", Shape{1}}})),
            (std::vector<int16_t>{0x3c00}));
}

TEST(StablehloNextAfterAndReducePrecision, StepInTheOperandsFormat) {
  const Tensor h = make<DType::F16>({2}, {0x3c00, 0x0000});
  const Tensor to = make<DType::F16>({2}, {0x4000, 0x8001});
  const Tensor next = run_op(OpKind::NextAfter, {h, to});
  ASSERT_EQ(next.dtype(), DType::F32);  // held as f32
  testing::expect_f32(next, {2}, {1.0f + std::ldexp(1.0f, -10), -std::ldexp(1.0f, -24)}, 0);
  // f32 1 + 2^-11 reduced to f16 precision (5, 10): ties to even -> 1.
  const Tensor r = run_op(OpKind::ReducePrecision, {Tensor::from_f32({3}, {1.0f + std::ldexp(1.0f, -11), 1e6f, 1e-6f})},
                          {{"exponent_bits", int64_t{5}}, {"mantissa_bits", int64_t{10}}});
  ASSERT_EQ(r.dtype(), DType::F32);
  EXPECT_EQ(std::vector<float>(r.data<float>(), r.data<float>() + 3), (std::vector<float>{1.0f, INFINITY, 0.0f}));
}

TEST(StablehloIota, AlongADimensionInAnyDtype) {
  const Tensor t = run_op(OpKind::Iota, {}, {{"dtype", std::string("u8")}, {"shape", Shape{2, 3}}, {"dimension", int64_t{1}}});
  EXPECT_EQ(values<DType::U8>(t), (std::vector<uint8_t>{0, 1, 2, 0, 1, 2}));
  const Tensor f = run_op(OpKind::Iota, {}, {{"dtype", std::string("f16")}, {"shape", Shape{3, 1}}, {"dimension", int64_t{0}}});
  testing::expect_f32(f, {3, 1}, {0, 1, 2}, 0);
}

TEST(ExistingElementwiseOnNewDtypes, IntegersWrapAndDivideAsStablehlo) {
  EXPECT_EQ(values<DType::I8>(run_op(OpKind::Add, {i8({127, -128}), i8({1, -1})})), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(values<DType::U8>(run_op(OpKind::Mul, {u8({16, 255}), u8({16, 255})})), (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(values<DType::U8>(run_op(OpKind::Sub, {u8({0}), u8({1})})), (std::vector<uint8_t>{255}));
  EXPECT_EQ(values<DType::I8>(run_op(OpKind::Neg, {i8({-128, 5})})), (std::vector<int8_t>{-128, -5}));
  const Attrs truncate{{"integer_division", std::string("truncate")}};
  EXPECT_EQ(values<DType::I32>(run_op(OpKind::Div, {i32({-7, 7, 5, INT32_MIN}), i32({2, -2, 0, -1})}, truncate)),
            (std::vector<int32_t>{-3, -3, -1, INT32_MIN}));
  EXPECT_EQ(values<DType::U8>(run_op(OpKind::Div, {u8({7}), u8({0})}, truncate)), (std::vector<uint8_t>{255}));
  // The default stays floor division (python //).
  EXPECT_EQ(values<DType::I32>(run_op(OpKind::Div, {i32({-7}), i32({2})})), (std::vector<int32_t>{-4}));
}

TEST(ExistingElementwiseOnNewDtypes, F64InF64AndF16RoundedPerOp) {
  // 1 + 1e-12 survives in f64 only.
  const Tensor s = run_op(OpKind::Add, {f64({1.0}), f64({1e-12})});
  ASSERT_EQ(s.dtype(), DType::F64);
  EXPECT_EQ(values<DType::F64>(s)[0], 1.0 + 1e-12);
  EXPECT_EQ(values<DType::F64>(run_op(OpKind::Exp, {f64({1.0})}))[0], std::exp(1.0));
  // f16: 1 + 2^-11 rounds back to 1 after the add (held as f32).
  const Tensor h = run_op(OpKind::Add, {make<DType::F16>({1}, {0x3c00}), make<DType::F16>({1}, {0x1000})});
  ASSERT_EQ(h.dtype(), DType::F32);
  EXPECT_EQ(h.data<float>()[0], 1.0f);
  // cast f64 -> f16 rounds once.
  const Tensor c = run_op(OpKind::Cast, {f64({1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)})},
                          {{"dtype", std::string("f16")}});
  EXPECT_EQ(c.data<float>()[0], 1.0f + std::ldexp(1.0f, -10));
  // cast to integers saturates and wraps as StableHLO convert.
  EXPECT_EQ(values<DType::U8>(run_op(OpKind::Cast, {f64({-3.0, 300.0})}, {{"dtype", std::string("u8")}})),
            (std::vector<uint8_t>{0, 255}));
}

TEST(ReferenceOptionsTest, Bf16ResultsRoundOnlyWhenAsked) {
  GraphBuilder b("bf16_add");
  const ValueId x = b.input("x", DType::BF16, {1});
  b.output("y", b.op(OpKind::Add, {x, b.op(OpKind::Constant, {}, {{"value", 0.00390625}, {"dtype", std::string("bf16")},
                                                                   {"shape", Shape{1}}})}));
  const Graph g = b.finish();
  const NamedTensors in{{"x", Tensor::from_f32({1}, {1.0f}).to(DType::BF16)}};
  EXPECT_EQ(run_reference(g, in).at(0).data<float>()[0], 1.00390625f);  // the f32 golden
  ReferenceOptions rounding;
  rounding.round_bf16_results = true;
  EXPECT_EQ(run_reference(g, in, rounding).at(0).data<float>()[0], 1.0f);  // 1 + 2^-8 ties to even in bf16
}

}  // namespace
}  // namespace meshtest::runtime
