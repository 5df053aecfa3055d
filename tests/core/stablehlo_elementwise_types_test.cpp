// Type rules of the StableHLO elementwise ops (OpKind 53..95): result types
// (bool for compare and is_finite, broadcasting, bitcast widths, iota) and
// the precise CompileErrors for operands and attributes they reject.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/core/type_rule_errors.h"
#include "core/error.h"
#include "core/op_def.h"

namespace meshtest {
namespace {

using testing::HasSubstr;

using testing_util::compile_error;

const TensorType kF16{DType::F16, {2, 3}};
const TensorType kU8{DType::U8, {2, 3}};
const TensorType kI8{DType::I8, {2, 3}};
const TensorType kBool{DType::Bool, {2, 3}};

TEST(StablehloElementwiseTypes, ResultTypes) {
  EXPECT_EQ(infer_type(OpKind::Floor, {kF16}, {}), kF16);
  EXPECT_EQ(infer_type(OpKind::IsFinite, {kF16}, {}), (TensorType{DType::Bool, {2, 3}}));
  EXPECT_EQ(infer_type(OpKind::Popcnt, {kU8}, {}), kU8);
  EXPECT_EQ(infer_type(OpKind::Not, {kBool}, {}), kBool);
  EXPECT_EQ(infer_type(OpKind::Minimum, {kBool, kBool}, {}), kBool);
  EXPECT_EQ(infer_type(OpKind::ShiftLeft, {kU8, TensorType{DType::U8, {}}}, {}), kU8);
  EXPECT_EQ(infer_type(OpKind::Compare, {kI8, kI8}, {{"direction", std::string("LT")}}),
            (TensorType{DType::Bool, {2, 3}}));
  EXPECT_EQ(infer_type(OpKind::Select, {TensorType{DType::Bool, {}}, kF16, kF16}, {}), kF16);
  EXPECT_EQ(infer_type(OpKind::Clamp, {TensorType{DType::I8, {}}, kI8, TensorType{DType::I8, {}}}, {}), kI8);
  EXPECT_EQ(infer_type(OpKind::Neg, {kI8}, {}), kI8);
}

TEST(StablehloElementwiseTypes, OperandDtypesAreChecked) {
  EXPECT_EQ(compile_error(OpKind::Floor, {kU8}), "operand must be floating point, got u8[2,3]");
  EXPECT_EQ(compile_error(OpKind::Abs, {kU8}), "operand must be a signed integer or floating point, got u8[2,3]");
  EXPECT_EQ(compile_error(OpKind::Popcnt, {kBool}), "operand must be an integer (not bool), got bool[2,3]");
  EXPECT_EQ(compile_error(OpKind::And, {kF16, kF16}), "lhs must be an integer or bool, got f16[2,3]");
  EXPECT_EQ(compile_error(OpKind::Power, {kBool, kBool}), "lhs must be an integer or floating point (not bool), got bool[2,3]");
  EXPECT_EQ(compile_error(OpKind::Remainder, {kI8, kU8}), "operand dtypes differ: i8[2,3] vs u8[2,3]");
  EXPECT_EQ(compile_error(OpKind::Select, {kI8, kF16, kF16}), "pred must be bool, got i8[2,3]");
  EXPECT_EQ(compile_error(OpKind::Neg, {kBool}), "operand must be floating point or an integer, got bool[2,3]");
  EXPECT_THAT(compile_error(OpKind::Minimum, {kI8, TensorType{DType::I8, {4}}}), HasSubstr("do not broadcast"));
}

TEST(StablehloElementwiseTypes, CompareDirectionAndType) {
  EXPECT_EQ(compile_error(OpKind::Compare, {kI8, kI8}), "missing attribute 'direction'");
  EXPECT_THAT(compile_error(OpKind::Compare, {kI8, kI8}, {{"direction", std::string("LESS")}}),
              HasSubstr("attribute 'direction' must be one of"));
  EXPECT_EQ(compile_error(OpKind::Compare, {kU8, kU8},
                          {{"direction", std::string("LT")}, {"compare_type", std::string("SIGNED")}}),
            "compare_type SIGNED does not apply to operands of u8[2,3]");
  EXPECT_EQ(compile_error(OpKind::Compare, {kF16, kF16},
                          {{"direction", std::string("EQ")}, {"compare_type", std::string("TOTALORDER")}}),
            "no error");
}

TEST(StablehloElementwiseTypes, BitcastConvertWidths) {
  const TensorType f32{DType::F32, {2, 3}};
  EXPECT_EQ(infer_type(OpKind::BitcastConvert, {f32}, {{"dtype", std::string("u8")}, {"shape", Shape{2, 3, 4}}}),
            (TensorType{DType::U8, {2, 3, 4}}));
  EXPECT_EQ(infer_type(OpKind::BitcastConvert, {TensorType{DType::U16, {3, 2}}},
                       {{"dtype", std::string("f32")}, {"shape", Shape{3}}}),
            (TensorType{DType::F32, {3}}));
  EXPECT_EQ(compile_error(OpKind::BitcastConvert, {kU8}, {{"dtype", std::string("f32")}, {"shape", Shape{2}}}),
            "bitcast_convert from u8[2,3] to f32 needs a last dimension of 4");
  EXPECT_EQ(compile_error(OpKind::BitcastConvert, {f32}, {{"dtype", std::string("i32")}, {"shape", Shape{6}}}),
            "attribute 'shape' [6] does not match the bitcast result shape [2,3]");
  EXPECT_THAT(compile_error(OpKind::BitcastConvert, {kBool}, {{"dtype", std::string("u8")}, {"shape", Shape{2, 3}}}),
              HasSubstr("bool has no bit width"));
}

TEST(StablehloElementwiseTypes, IotaAndReducePrecisionAttributes) {
  EXPECT_EQ(infer_type(OpKind::Iota, {}, {{"dtype", std::string("u32")}, {"shape", Shape{4, 2}}, {"dimension", int64_t{1}}}),
            (TensorType{DType::U32, {4, 2}}));
  EXPECT_EQ(compile_error(OpKind::Iota, {}, {{"dtype", std::string("u32")}, {"shape", Shape{4}}, {"dimension", int64_t{1}}}),
            "iota dimension 1 out of range for shape [4]");
  EXPECT_THAT(compile_error(OpKind::Iota, {}, {{"dtype", std::string("c64")}, {"shape", Shape{4}}, {"dimension", int64_t{0}}}),
              HasSubstr("unknown dtype 'c64'"));
  EXPECT_EQ(compile_error(OpKind::ReducePrecision, {kF16}, {{"exponent_bits", int64_t{0}}, {"mantissa_bits", int64_t{3}}}),
            "exponent_bits must be in [1, 11], got 0");
}

TEST(StablehloElementwiseTypes, DivIntegerDivisionAttribute) {
  EXPECT_EQ(compile_error(OpKind::Div, {kI8, kI8}, {{"integer_division", std::string("truncate")}}), "no error");
  EXPECT_THAT(compile_error(OpKind::Div, {kI8, kI8}, {{"integer_division", std::string("round")}}),
              HasSubstr("attribute 'integer_division' must be one of"));
}

// The groups the kernel tables dispatch alike (core/ops.h): an op joining
// the elementwise family with an attribute or another arity must not slip
// into a group whose kernels ignore attributes.
TEST(StablehloElementwiseTypes, KernelTableGroups) {
  using K = OpKind;
  EXPECT_EQ(stablehlo_unary_ops(),
            (std::vector<OpKind>{K::Abs, K::Sign, K::Floor, K::Ceil, K::RoundAfz, K::RoundEven, K::Expm1, K::Log1p,
                                 K::Cbrt, K::Tan, K::Not, K::Popcnt, K::Clz, K::IsFinite, K::Sinh, K::Cosh, K::Asin,
                                 K::Acos, K::Atan, K::Asinh, K::Acosh, K::Atanh, K::Erfc, K::ErfInv, K::Lgamma,
                                 K::Digamma}));
  EXPECT_EQ(stablehlo_binary_ops(),
            (std::vector<OpKind>{K::Minimum, K::Power, K::Remainder, K::Atan2, K::And, K::Or, K::Xor, K::ShiftLeft,
                                 K::ShiftRightArithmetic, K::ShiftRightLogical, K::NextAfter}));
  EXPECT_EQ(stablehlo_primitive_ops().front(), K::Abs);
  EXPECT_EQ(stablehlo_primitive_ops().back(), K::TakeAlongAxis);
  EXPECT_EQ(stablehlo_primitive_ops().size(), 58u);
}

}  // namespace
}  // namespace meshtest
