// Reference reductions: reduce_sum / reduce_mean / reduce_max over any set of
// axes, with or without keepdim. Float sums accumulate in double; integer
// tensors reduce in int64 and keep their dtype.
#include <cmath>
#include <limits>

#include "core/error.h"
#include "runtime/reference/reference_kernels.h"
#include "runtime/reference/reference_strided_loop.h"

namespace meshtest::runtime::reference {

namespace {

struct ReduceLayout {
  Shape out_shape;
  Shape kept_shape;                   // kept dims, in order
  std::vector<int64_t> kept_strides;  // their input strides
  StridedPlan<1> reduced;             // iteration over the reduced dims
  int64_t reduced_count = 1;
};

ReduceLayout reduce_layout(const Tensor& x, const Attrs& attrs) {
  const int64_t rank = x.rank();
  const bool keepdim = attrs.get_int("keepdim", 0) != 0;
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t a : attrs.get_ints("axes")) {
    const int64_t n = a < 0 ? a + rank : a;
    if (n < 0 || n >= rank)
      throw RuntimeError("axis " + std::to_string(a) + " out of range for " + shape_to_string(x.shape()));
    if (reduced[static_cast<size_t>(n)]) throw RuntimeError("axis " + std::to_string(a) + " listed twice");
    reduced[static_cast<size_t>(n)] = true;
  }
  const std::vector<int64_t> strides = shape_strides(x.shape());
  ReduceLayout layout;
  Shape reduced_shape;
  std::vector<int64_t> reduced_strides;
  for (size_t d = 0; d < reduced.size(); ++d) {
    if (reduced[d]) {
      reduced_shape.push_back(x.shape()[d]);
      reduced_strides.push_back(strides[d]);
      layout.reduced_count *= x.shape()[d];
      if (keepdim) layout.out_shape.push_back(1);
    } else {
      layout.kept_shape.push_back(x.shape()[d]);
      layout.kept_strides.push_back(strides[d]);
      layout.out_shape.push_back(x.shape()[d]);
    }
  }
  layout.reduced = make_strided_plan<1>(reduced_shape, {reduced_strides});
  return layout;
}

// Folds the reduced elements of every output position with `step`, starting
// from `init`, and writes finish(acc) into the output.
template <class T, class Acc, class Step, class Finish>
Tensor reduce_with(const Tensor& x, const ReduceLayout& layout, Acc init, Step step, Finish finish) {
  Tensor out(x.dtype(), layout.out_shape);
  const T* px = x.data<T>();
  T* po = out.data<T>();
  const int64_t outputs = out.numel();
  const size_t kept_rank = layout.kept_shape.size();
  const int64_t count = layout.reduced_count;
  parallel_ranges(
      outputs, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(count, 1)), [&](int64_t o0, int64_t o1) {
        for (int64_t o = o0; o < o1; ++o) {
          int64_t base = 0;
          int64_t rem = o;
          for (size_t d = kept_rank; d-- > 0;) {
            base += (rem % layout.kept_shape[d]) * layout.kept_strides[d];
            rem /= layout.kept_shape[d];
          }
          Acc acc = init;
          if (count > 0) {
            for_each_strided_run_in(
                layout.reduced, 0, count,
                [&](int64_t, const std::array<int64_t, 1>& off, int64_t len, const std::array<int64_t, 1>& s) {
                  const T* p = px + base + off[0];
                  for (int64_t i = 0; i < len; ++i) acc = step(acc, p[i * s[0]]);
                });
          }
          po[o] = finish(acc);
        }
      });
  return out;
}

template <class T>
Tensor reduce_int(OpKind kind, const Tensor& x, const ReduceLayout& layout) {
  const int64_t count = layout.reduced_count;
  switch (kind) {
    case OpKind::ReduceSum:
      return reduce_with<T>(
          x, layout, int64_t{0}, [](int64_t a, T v) { return a + v; }, [](int64_t a) { return static_cast<T>(a); });
    case OpKind::ReduceMean:
      if (count == 0) throw RuntimeError("integer mean over an empty axis");
      // Integer mean truncates toward zero, like an integer cast of the exact mean.
      return reduce_with<T>(
          x, layout, int64_t{0}, [](int64_t a, T v) { return a + v; },
          [count](int64_t a) { return static_cast<T>(a / count); });
    default:
      return reduce_with<T>(
          x, layout, std::numeric_limits<int64_t>::min(), [](int64_t a, T v) { return std::max<int64_t>(a, v); },
          [](int64_t a) { return static_cast<T>(a); });
  }
}

}  // namespace

Tensor reduce(OpKind kind, const Tensor& x, const Attrs& attrs) {
  const ReduceLayout layout = reduce_layout(x, attrs);
  const int64_t count = layout.reduced_count;
  if (kind == OpKind::ReduceMax && count == 0 && shape_numel(layout.out_shape) > 0) {
    throw RuntimeError("reduce_max over an empty axis of " + shape_to_string(x.shape()));
  }
  switch (x.dtype()) {
    case DType::F32:
      switch (kind) {
        case OpKind::ReduceSum:
          return reduce_with<float>(
              x, layout, 0.0, [](double a, float v) { return a + v; }, [](double a) { return static_cast<float>(a); });
        case OpKind::ReduceMean:
          // An empty mean is NaN (0 / 0), as in PyTorch.
          return reduce_with<float>(
              x, layout, 0.0, [](double a, float v) { return a + v; },
              [count](double a) { return static_cast<float>(a / static_cast<double>(count)); });
        case OpKind::ReduceMax:
          return reduce_with<float>(
              x, layout, -std::numeric_limits<float>::infinity(),
              [](float a, float v) { return (v > a || std::isnan(v)) && !std::isnan(a) ? v : a; },
              [](float a) { return a; });
        default:
          break;
      }
      break;
    case DType::I32:
      return reduce_int<int32_t>(kind, x, layout);
    case DType::I64:
      return reduce_int<int64_t>(kind, x, layout);
    default:
      break;
  }
  throw RuntimeError(std::string(op_name(kind)) + " of dtype " + std::string(dtype_name(x.dtype())) +
                     " is not supported");
}

}  // namespace meshtest::runtime::reference
