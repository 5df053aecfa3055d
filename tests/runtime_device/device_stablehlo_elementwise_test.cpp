// The simulated chip's StableHLO elementwise kernels, compiled and run like
// any graph: integers exact (wrap-around, shifts, remainder, compare,
// select, clamp, iota, StableHLO division), floats through bf16, and the
// new dtypes through cast.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/dtype_dispatch.h"
#include "device_test_util.h"

namespace meshtest {
namespace {

using testing_util::run_op;
using testing_util::values;

template <DType D>
Tensor make(const Shape& shape, const std::vector<typename DTypeTag<D>::storage>& v) {
  Tensor t(D, shape);
  std::memcpy(t.raw_data(), v.data(), v.size() * sizeof(v[0]));
  return t;
}

TEST(DeviceStablehlo, IntegerOpsAreExact) {
  const Tensor a = make<DType::I8>({4}, {-128, -1, 64, 7});
  const Tensor b = make<DType::I8>({4}, {8, 7, 1, -3});
  EXPECT_EQ(values(run_op(OpKind::ShiftLeft, {a, b})), (std::vector<double>{0, -128, -128, 0}));
  EXPECT_EQ(values(run_op(OpKind::ShiftRightArithmetic, {a, b})), (std::vector<double>{-1, -1, 32, 0}));
  EXPECT_EQ(values(run_op(OpKind::Remainder, {a, b})), (std::vector<double>{0, -1, 0, 1}));
  EXPECT_EQ(values(run_op(OpKind::Add, {a, b})), (std::vector<double>{-120, 6, 65, 4}));
  EXPECT_EQ(values(run_op(OpKind::Popcnt, {a})), (std::vector<double>{1, 8, 1, 3}));
  EXPECT_EQ(values(run_op(OpKind::Div, {a, b}, {{"integer_division", std::string("truncate")}})),
            (std::vector<double>{-16, 0, 64, -2}));
  EXPECT_EQ(values(run_op(OpKind::Compare, {a, b}, {{"direction", std::string("LT")}})),
            (std::vector<double>{1, 1, 0, 0}));
  const Tensor u = make<DType::U64>({2}, {UINT64_MAX, 3});
  const Tensor r = run_op(OpKind::Mul, {u, make<DType::U64>({2}, {2, 5})});
  EXPECT_EQ(storage<DTypeTag<DType::U64>>(r)[0], UINT64_MAX - 1);
  EXPECT_EQ(storage<DTypeTag<DType::U64>>(r)[1], 15u);
}

TEST(DeviceStablehlo, SelectClampIota) {
  const Tensor pred = make<DType::Bool>({3}, {1, 0, 1});
  EXPECT_EQ(values(run_op(OpKind::Select, {pred, make<DType::U16>({3}, {1, 2, 3}), make<DType::U16>({3}, {9, 9, 9})})),
            (std::vector<double>{1, 9, 3}));
  EXPECT_EQ(values(run_op(OpKind::Clamp, {make<DType::I16>({}, {0}), make<DType::I16>({3}, {-4, 4, 40}),
                                          make<DType::I16>({}, {10})})),
            (std::vector<double>{0, 4, 10}));
  EXPECT_EQ(values(run_op(OpKind::Iota, {}, {{"dtype", std::string("i16")}, {"shape", Shape{2, 2}}, {"dimension", int64_t{0}}})),
            (std::vector<double>{0, 0, 1, 1}));
}

TEST(DeviceStablehlo, FloatsThroughBf16) {
  const Tensor x = testing_util::f32({4}, {0.5f, 1.5f, -2.5f, 3.0f});
  testing_util::expect_close(run_op(OpKind::RoundEven, {x}), {4}, {0, 2, -2, 3}, 0, 0);
  testing_util::expect_close(run_op(OpKind::RoundAfz, {x}), {4}, {1, 2, -3, 3}, 0, 0);
  testing_util::expect_close(run_op(OpKind::Expm1, {x}), {4}, {std::expm1(0.5), std::expm1(1.5), std::expm1(-2.5),
                                                                std::expm1(3.0)});
  EXPECT_EQ(values(run_op(OpKind::IsFinite, {testing_util::f32({2}, {1.0f, INFINITY})})), (std::vector<double>{1, 0}));
}

TEST(DeviceStablehlo, CastBetweenNewDtypes) {
  const Tensor f = testing_util::f32({3}, {-3.7f, 300.0f, 2.0f});
  EXPECT_EQ(values(run_op(OpKind::Cast, {f}, {{"dtype", std::string("u8")}})), (std::vector<double>{0, 255, 2}));
  EXPECT_EQ(values(run_op(OpKind::Cast, {f}, {{"dtype", std::string("i8")}})), (std::vector<double>{-3, 127, 2}));
  const Tensor back = run_op(OpKind::Cast, {make<DType::I16>({2}, {-7, 1000})}, {{"dtype", std::string("f64")}});
  EXPECT_EQ(values(back), (std::vector<double>{-7, 1000}));
}

}  // namespace
}  // namespace meshtest
