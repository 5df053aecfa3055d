// Helpers for the reference-executor tests: run one op through
// run_reference (its operands become graph inputs in0, in1, ...) and compare
// a result with expected numbers.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/graph_builder.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runtime::testing {

inline Tensor run_op(OpKind kind, const std::vector<Tensor>& operands, Attrs attrs = {}) {
  GraphBuilder b("single_op");
  std::vector<ValueId> ids;
  NamedTensors feeds;
  for (size_t i = 0; i < operands.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    ids.push_back(b.input(name, operands[i].dtype(), operands[i].shape()));
    feeds[name] = operands[i];
  }
  b.output("out", b.op(kind, ids, std::move(attrs)));
  std::vector<Tensor> out = run_reference(b.finish(), feeds);
  return out.at(0);
}

// 0, 1, 2, ... as f32 in `shape`.
inline Tensor iota(const Shape& shape, float start = 0.0f) {
  std::vector<float> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = start + static_cast<float>(i);
  return Tensor::from_f32(shape, v);
}

inline void expect_f32(const Tensor& t, const Shape& shape, const std::vector<float>& expected, float tol = 1e-5f) {
  ASSERT_EQ(t.dtype(), DType::F32);
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(static_cast<size_t>(t.numel()), expected.size());
  const float* p = t.data<float>();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(p[i], expected[i], tol) << "element " << i;
  }
}

inline void expect_close_to(const Tensor& t, const std::vector<double>& expected, double tol) {
  ASSERT_EQ(t.dtype(), DType::F32);
  ASSERT_EQ(static_cast<size_t>(t.numel()), expected.size());
  const float* p = t.data<float>();
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_NEAR(p[i], expected[i], tol) << "element " << i;
  }
}

}  // namespace meshtest::runtime::testing
