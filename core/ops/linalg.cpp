// Linear algebra ops: matmul (batched, broadcasting) and linear (PyTorch layout).
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

TensorType infer_matmul(const TensorType& a, const TensorType& b) {
  if (a.shape.size() < 2 || b.shape.size() < 2) fail("matmul operands must have rank >= 2");
  const int64_t k_a = a.shape.back();
  const int64_t k_b = b.shape[b.shape.size() - 2];
  if (k_a != k_b) fail("matmul contraction mismatch: " + type_to_string(a) + " @ " + type_to_string(b));
  Shape batch_a(a.shape.begin(), a.shape.end() - 2);
  Shape batch_b(b.shape.begin(), b.shape.end() - 2);
  Shape out = broadcast_shapes(batch_a, batch_b);
  out.push_back(a.shape[a.shape.size() - 2]);
  out.push_back(b.shape.back());
  return {a.dtype, out};
}

namespace {

TensorType matmul_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_same_dtype(in, 0, 1);
  return infer_matmul(in[0], in[1]);
}

TensorType linear_type(const std::vector<TensorType>& in, const OpAttrs&) {
  const size_t n = in.size();
  require_same_dtype(in, 0, n - 1);
  const TensorType& x = in[0];
  const TensorType& w = in[1];
  if (x.shape.empty()) fail("linear input must have rank >= 1");
  require_rank(w, 2, "linear weight");
  if (w.shape[1] != x.shape.back()) {
    fail("linear weight " + type_to_string(w) + " does not match input features of " + type_to_string(x));
  }
  if (n == 3 && in[2].shape != Shape{w.shape[0]}) fail("linear bias must have shape [" + std::to_string(w.shape[0]) + "]");
  Shape out = x.shape;
  out.back() = w.shape[0];
  return {x.dtype, out};
}

}  // namespace

std::vector<OpDef> linalg_ops() {
  return {
      {OpKind::Matmul, "matmul", OpFamily::Linalg, 2, 2, {}, matmul_type,
       "matmul(a[...,M,K], b[...,K,N]) -> [...,M,N]: batch dims broadcast; rank >= 2 each"},
      {OpKind::Linear, "linear", OpFamily::Linalg, 2, 3, {}, linear_type,
       "linear(x[...,K], w[N,K], bias[N]?): x @ w^T + bias (PyTorch layout)"},
  };
}

}  // namespace meshtest::ops
