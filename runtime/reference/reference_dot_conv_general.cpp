// Reference dot_general and convolution (StableHLO general dimension
// numbers) for any dtype. dot_general transposes its operands to [B, M, K] and
// [B, K, N] and multiplies (f32 through the Eigen GEMM; other dtypes with a
// plain loop); convolution loops over output elements directly, honouring
// strides, padding (negative crops), lhs/rhs dilation, window reversal and
// feature/batch groups. Outside the f32 GEMM, float products accumulate in
// f64 and round once to the element type; integers wrap (two's complement);
// bool is or-of-ands.
#include <algorithm>
#include <type_traits>

#include "core/dtype_dispatch.h"
#include "core/error.h"
#include "runtime/reference/reference_kernels.h"
#include "runtime/reference/reference_strided_loop.h"
#include "runtime/reference/reference_structural.h"

namespace meshtest::runtime::reference {

namespace {

size_t at(int64_t d) { return static_cast<size_t>(d); }

// Multiply-accumulate in a dtype's accumulation type: floats in f64 (one
// rounding to the element type at the end, so the result is as close to the
// exact sum as the type allows), integers in wrapping uint64.
template <class Tag>
struct Mac {
  using C = typename Tag::compute;
  // bool accumulates in a byte (so rows of accumulators are plain vectors).
  using Acc = std::conditional_t<std::is_same_v<C, bool>, uint8_t,
                                 std::conditional_t<std::is_floating_point_v<C>, double, uint64_t>>;
  static void add(Acc& acc, C a, C b) {
    if constexpr (std::is_same_v<C, bool>) {
      acc = static_cast<uint8_t>(acc | (a && b));
    } else if constexpr (std::is_floating_point_v<C>) {
      acc += static_cast<double>(a) * static_cast<double>(b);
    } else {
      using U = std::make_unsigned_t<C>;
      acc += static_cast<uint64_t>(static_cast<U>(a)) * static_cast<uint64_t>(static_cast<U>(b));
    }
  }
  static typename Tag::storage finish(Acc acc) {
    if constexpr (std::is_same_v<C, bool>) {
      return Tag::store(acc != 0);
    } else if constexpr (std::is_same_v<Acc, uint64_t>) {
      return Tag::store(static_cast<C>(static_cast<std::make_unsigned_t<C>>(acc)));
    } else {
      return Tag::store(static_cast<C>(acc));
    }
  }
};

// The result dtype of a computing op and its operands converted to it (a
// preferred result type converts the operands first, as StableHLO's
// to_destination_type does).
struct Operands {
  DType dtype;
  Tensor lhs, rhs;
};

Operands operands_in_result_dtype(const Tensor& lhs, const Tensor& rhs, const Attrs& attrs) {
  if (lhs.dtype() != rhs.dtype()) throw RuntimeError("lhs and rhs must share a dtype");
  const DType dtype = held_result_dtype(parse_dtype(attrs.get_string("dtype")), lhs.dtype());
  return {dtype, lhs.to(dtype), rhs.to(dtype)};
}

std::vector<int64_t> free_dims(int64_t rank, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end()) out.push_back(d);
  }
  return out;
}

// x with its dims reordered to `order` (a permutation of its dims), contiguous.
Tensor permuted(const Tensor& x, const std::vector<int64_t>& order) {
  const std::vector<int64_t> strides = shape_strides(x.shape());
  Shape shape;
  std::vector<int64_t> perm_strides;
  for (int64_t d : order) {
    shape.push_back(x.dim(d));
    perm_strides.push_back(strides[at(d)]);
  }
  return copy_strided(x, shape, perm_strides, 0);
}

int64_t product(const Tensor& x, const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= x.dim(d);
  return p;
}

}  // namespace

Tensor dot_general(const Tensor& lhs_in, const Tensor& rhs_in, const Attrs& attrs) {
  const std::vector<int64_t>& lb = attrs.get_ints("lhs_batching_dims", {});
  const std::vector<int64_t>& rb = attrs.get_ints("rhs_batching_dims", {});
  const std::vector<int64_t>& lc = attrs.get_ints("lhs_contracting_dims", {});
  const std::vector<int64_t>& rc = attrs.get_ints("rhs_contracting_dims", {});
  const Operands ops = operands_in_result_dtype(lhs_in, rhs_in, attrs);
  const std::vector<int64_t> lf = free_dims(ops.lhs.rank(), lb, lc);
  const std::vector<int64_t> rf = free_dims(ops.rhs.rank(), rb, rc);
  Shape shape;
  for (int64_t d : lb) shape.push_back(ops.lhs.dim(d));
  for (int64_t d : lf) shape.push_back(ops.lhs.dim(d));
  for (int64_t d : rf) shape.push_back(ops.rhs.dim(d));
  const int64_t batch = product(ops.lhs, lb), m = product(ops.lhs, lf), k = product(ops.lhs, lc);
  const int64_t n = product(ops.rhs, rf);
  if (k != product(ops.rhs, rc) || batch != product(ops.rhs, rb)) throw RuntimeError("dot_general dimensions differ");
  std::vector<int64_t> lhs_order = lb, rhs_order = rb;
  lhs_order.insert(lhs_order.end(), lf.begin(), lf.end());
  lhs_order.insert(lhs_order.end(), lc.begin(), lc.end());
  rhs_order.insert(rhs_order.end(), rc.begin(), rc.end());
  rhs_order.insert(rhs_order.end(), rf.begin(), rf.end());
  const Tensor a = permuted(ops.lhs, lhs_order);  // [batch, m, k]
  const Tensor b = permuted(ops.rhs, rhs_order);  // [batch, k, n]
  Tensor out(ops.dtype, shape);
  if (out.numel() == 0) return out;
  if (ops.dtype == DType::F32) {
    for (int64_t i = 0; i < batch; ++i) {
      gemm(a.data<float>() + i * m * k, k, b.data<float>() + i * k * n, n, false, out.data<float>() + i * m * n, n, m,
           n, k);
    }
    return out;
  }
  visit_dtype(ops.dtype, [&](auto tag) {
    using Tag = decltype(tag);
    using M = Mac<Tag>;
    const auto* pa = storage<Tag>(a);
    const auto* pb = storage<Tag>(b);
    auto* po = storage<Tag>(out);
    parallel_ranges(batch * m, 1, [&](int64_t r0, int64_t r1) {
      std::vector<typename M::Acc> row(at(n));
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t i = r / m;
        std::fill(row.begin(), row.end(), typename M::Acc{});
        for (int64_t p = 0; p < k; ++p) {
          const auto x = Tag::load(pa[r * k + p]);
          const auto* brow = pb + (i * k + p) * n;
          for (int64_t j = 0; j < n; ++j) M::add(row[at(j)], x, Tag::load(brow[j]));
        }
        for (int64_t j = 0; j < n; ++j) po[r * n + j] = M::finish(row[at(j)]);
      }
    });
  });
  return out;
}

namespace {

// The convolution's geometry read from its attributes.
struct ConvGeometry {
  int64_t in_batch, in_feature, k_in, k_out, out_batch, out_feature;
  std::vector<int64_t> in_spatial, k_spatial, out_spatial;
  std::vector<int64_t> strides, padding, lhs_dilation, rhs_dilation, reversal;
  int64_t feature_groups, batch_groups;
};

ConvGeometry conv_geometry(const Tensor& lhs, const Attrs& attrs) {
  ConvGeometry g;
  const auto spatial = static_cast<size_t>(lhs.rank() - 2);
  g.in_batch = attrs.get_int("input_batch_dimension");
  g.in_feature = attrs.get_int("input_feature_dimension");
  g.in_spatial = attrs.get_ints("input_spatial_dimensions");
  g.k_in = attrs.get_int("kernel_input_feature_dimension");
  g.k_out = attrs.get_int("kernel_output_feature_dimension");
  g.k_spatial = attrs.get_ints("kernel_spatial_dimensions");
  g.out_batch = attrs.get_int("output_batch_dimension");
  g.out_feature = attrs.get_int("output_feature_dimension");
  g.out_spatial = attrs.get_ints("output_spatial_dimensions");
  g.strides = ints_or_fill(attrs, "window_strides", spatial, 1);
  g.padding = ints_or_fill(attrs, "padding", 2 * spatial, 0);
  g.lhs_dilation = ints_or_fill(attrs, "lhs_dilation", spatial, 1);
  g.rhs_dilation = ints_or_fill(attrs, "rhs_dilation", spatial, 1);
  g.reversal = ints_or_fill(attrs, "window_reversal", spatial, 0);
  g.feature_groups = attrs.get_int("feature_group_count", 1);
  g.batch_groups = attrs.get_int("batch_group_count", 1);
  return g;
}

}  // namespace

Tensor convolution(const Tensor& lhs_in, const Tensor& rhs_in, const Attrs& attrs) {
  const Operands ops = operands_in_result_dtype(lhs_in, rhs_in, attrs);
  const Tensor& lhs = ops.lhs;
  const Tensor& rhs = ops.rhs;
  const ConvGeometry g = conv_geometry(lhs, attrs);
  const size_t spatial = g.in_spatial.size();
  const int64_t out_features = rhs.dim(g.k_out);
  const int64_t group_in = rhs.dim(g.k_in);                       // input features per feature group
  const int64_t group_out = out_features / g.feature_groups;      // output features per feature group
  const int64_t batch_group_out = out_features / g.batch_groups;  // output features per batch group
  const int64_t out_batches = lhs.dim(g.in_batch) / g.batch_groups;
  Shape shape(at(lhs.rank()));
  shape[at(g.out_batch)] = out_batches;
  shape[at(g.out_feature)] = out_features;
  Shape window(spatial);
  for (size_t s = 0; s < spatial; ++s) {
    window[s] = rhs.dim(g.k_spatial[s]);
    shape[at(g.out_spatial[s])] = window_count(lhs.dim(g.in_spatial[s]), g.lhs_dilation[s], g.padding[2 * s],
                                               g.padding[2 * s + 1], window[s], g.rhs_dilation[s], g.strides[s]);
  }
  Tensor out(ops.dtype, shape);
  if (out.numel() == 0) return out;
  const std::vector<int64_t> ls = shape_strides(lhs.shape()), rs = shape_strides(rhs.shape());
  const std::vector<int64_t> os = shape_strides(shape);
  const int64_t window_elements = shape_numel(window);
  visit_dtype(ops.dtype, [&](auto tag) {
    using Tag = decltype(tag);
    using M = Mac<Tag>;
    const auto* pl = storage<Tag>(lhs);
    const auto* pr = storage<Tag>(rhs);
    auto* po = storage<Tag>(out);
    parallel_ranges(out.numel(), 64, [&](int64_t e0, int64_t e1) {
      std::vector<int64_t> ks(spatial);
      for (int64_t e = e0; e < e1; ++e) {
        // This output element's coordinates.
        int64_t rem = e;
        std::vector<int64_t> oc(at(out.rank()));
        for (size_t d = oc.size(); d-- > 0;) {
          oc[d] = rem % shape[d];
          rem /= shape[d];
        }
        const int64_t of = oc[at(g.out_feature)];
        const int64_t feature_group = of / group_out;
        const int64_t batch = (of / batch_group_out) * out_batches + oc[at(g.out_batch)];
        typename M::Acc acc{};
        for (int64_t w = 0; w < window_elements; ++w) {
          // Kernel position w, and the lhs element it meets (or none: padding, dilation holes).
          int64_t wrem = w, lhs_offset = batch * ls[at(g.in_batch)], rhs_offset = of * rs[at(g.k_out)];
          bool hits = true;
          for (size_t s = spatial; s-- > 0;) {
            ks[s] = wrem % window[s];
            wrem /= window[s];
            rhs_offset += ks[s] * rs[at(g.k_spatial[s])];
            const int64_t tap = g.reversal[s] != 0 ? window[s] - 1 - ks[s] : ks[s];
            const int64_t dilated =
                oc[at(g.out_spatial[s])] * g.strides[s] + tap * g.rhs_dilation[s] - g.padding[2 * s];
            const int64_t index = dilated / g.lhs_dilation[s];
            hits = hits && dilated >= 0 && dilated % g.lhs_dilation[s] == 0 && index < lhs.dim(g.in_spatial[s]);
            lhs_offset += index * ls[at(g.in_spatial[s])];
          }
          if (!hits) continue;
          for (int64_t c = 0; c < group_in; ++c) {
            const auto x = Tag::load(pl[lhs_offset + (feature_group * group_in + c) * ls[at(g.in_feature)]]);
            M::add(acc, x, Tag::load(pr[rhs_offset + c * rs[at(g.k_in)]]));
          }
        }
        po[e] = M::finish(acc);
      }
    });
  });
  return out;
}

}  // namespace meshtest::runtime::reference
