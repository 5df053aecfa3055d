// topk_mask (the op mixture-of-experts routing needs), hand-computed: type
// rule, CPU reference, and the simulated chip through the compiler.
#include <gtest/gtest.h>

#include "compiler/compile.h"
#include "core/error.h"
#include "core/graph_builder.h"
#include "runtime/device/simulated_chip.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::testing {
namespace {

Graph topk_graph(const Shape& shape, int64_t k, int64_t axis) {
  GraphBuilder b("topk");
  const ValueId x = b.input("x", DType::F32, shape);
  b.output("mask", b.op(OpKind::TopkMask, {x}, {{"k", k}, {"axis", axis}}));
  return b.finish();
}

std::vector<float> reference(const Shape& shape, const std::vector<float>& x, int64_t k, int64_t axis) {
  return runtime::run_reference(topk_graph(shape, k, axis), {{"x", Tensor::from_f32(shape, x)}}).at(0).to_f32_vector();
}

std::vector<float> device(const Shape& shape, const std::vector<float>& x, int64_t k, int64_t axis) {
  const DeviceProgram program = compiler::compile(topk_graph(shape, k, axis), {});
  runtime::SimulatedChip chip({});
  return chip.execute(program, {{"x", Tensor::from_f32(shape, x)}}).at(0).to(DType::F32).to_f32_vector();
}

struct Case {
  Shape shape;
  std::vector<float> x;
  int64_t k, axis;
  std::vector<float> want;
};

const std::vector<Case> kCases = {
    // last axis: row 0 has a tie (0.5 at 1 and 3), row 1 picks 4 and 3
    {{2, 4}, {0.1f, 0.5f, 0.3f, 0.5f, 4, -1, 2, 3}, 2, -1, {0, 1, 0, 1, 1, 0, 0, 1}},
    // axis 0 of [3,2]: column 0 keeps rows 1,2 (3, 2); column 1 rows 0,1 (6, 5)
    {{3, 2}, {1, 6, 3, 5, 2, 4}, 2, 0, {0, 1, 1, 1, 1, 0}},
    // all equal: the lower indices win
    {{3}, {1, 1, 1}, 2, 0, {1, 1, 0}},
    // k = size keeps everything
    {{2}, {-3, 7}, 2, 0, {1, 1}},
};

TEST(TopkMaskOp, ReferenceMatchesHandComputedMasks) {
  for (const Case& c : kCases) EXPECT_EQ(reference(c.shape, c.x, c.k, c.axis), c.want);
}

TEST(TopkMaskOp, SimulatedChipMatchesHandComputedMasks) {
  for (const Case& c : kCases) EXPECT_EQ(device(c.shape, c.x, c.k, c.axis), c.want);
}

TEST(TopkMaskOp, TypeRuleChecksKAndAxis) {
  EXPECT_EQ(infer_type(OpKind::TopkMask, {{DType::BF16, {2, 8}}}, Attrs{{"k", int64_t{2}}, {"axis", int64_t{-1}}}),
            (TensorType{DType::BF16, {2, 8}}));
  for (int64_t k : {0, 9}) {
    EXPECT_THROW(infer_type(OpKind::TopkMask, {{DType::F32, {2, 8}}}, Attrs{{"k", k}, {"axis", int64_t{1}}}),
                 CompileError)
        << k;
  }
  EXPECT_THROW(infer_type(OpKind::TopkMask, {{DType::F32, {2, 8}}}, Attrs{{"k", int64_t{1}}, {"axis", int64_t{2}}}),
               CompileError);
  EXPECT_THROW(infer_type(OpKind::TopkMask, {{DType::I64, {8}}}, Attrs{{"k", int64_t{1}}, {"axis", int64_t{0}}}),
               CompileError);
}

}  // namespace
}  // namespace meshtest::testing
