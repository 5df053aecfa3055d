// Device kernels of the compiler's composite ops (made by the `fuse` pass):
// rms_norm and sdpa. Like the fused kernels of real devices they keep every
// intermediate in f32 (scores, probabilities, statistics) and round the
// result to bf16 once. Also the mantissa slices of reduced math fidelity.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "runtime/device/device_kernels.h"

namespace meshtest::runtime::device_kernels {

namespace {

// Element offset of `mask` for batch `b` (flattened over `batch_dims`), query
// row `s`, key column `t`, the mask broadcasting to [batch_dims..., S, T].
struct MaskIndexer {
  std::vector<int64_t> strides;  // aligned to the scores' rank, 0 where broadcast
  std::vector<int64_t> batch_dims;

  MaskIndexer(const Shape& mask, const Shape& scores) : strides(scores.size(), 0) {
    const std::vector<int64_t> own = shape_strides(mask);
    const size_t offset = scores.size() - mask.size();
    for (size_t i = 0; i < mask.size(); ++i) strides[offset + i] = mask[i] == 1 ? 0 : own[i];
    batch_dims.assign(scores.begin(), scores.end() - 2);
  }
  int64_t base(int64_t b) const {
    int64_t off = 0;
    for (size_t d = batch_dims.size(); d-- > 0;) {
      off += (b % batch_dims[d]) * strides[d];
      b /= batch_dims[d];
    }
    return off;
  }
  int64_t at(int64_t base_offset, int64_t s, int64_t t) const {
    return base_offset + s * strides[strides.size() - 2] + t * strides.back();
  }
};

}  // namespace

void rms_norm(const Tensor& x, const Tensor& w, const Attrs& attrs, Tensor& out) {
  require_bf16(x, "rms_norm input");
  require_bf16(w, "rms_norm weight");
  const int64_t d = x.shape().back();
  const int64_t rows = d == 0 ? 0 : x.numel() / d;
  const auto eps = static_cast<float>(attrs.get_float("eps"));
  const uint16_t* in = x.data<uint16_t>();
  const uint16_t* weight = w.data<uint16_t>();
  uint16_t* o = out.data<uint16_t>();
  parallel_ranges(rows, std::max<int64_t>(1, 8192 / std::max<int64_t>(d, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const uint16_t* row = in + r * d;
      float sum_sq = 0.0f;
      for (int64_t i = 0; i < d; ++i) sum_sq += load_bf16(row[i]) * load_bf16(row[i]);
      const float inv = 1.0f / std::sqrt(sum_sq / static_cast<float>(d) + eps);
      for (int64_t i = 0; i < d; ++i) o[r * d + i] = store_bf16(load_bf16(row[i]) * inv * load_bf16(weight[i]));
    }
  });
}

void sdpa(const std::vector<const Tensor*>& in, const Attrs& attrs, Tensor& out) {
  const Tensor& q = *in[0];
  const Tensor& kt = *in[1];
  const Tensor& v = *in[2];
  for (const Tensor* t : in) require_bf16(*t, "sdpa operand");
  const int64_t seq = q.dim(-2), depth = q.dim(-1), keys = kt.dim(-1), width = v.dim(-1);
  const int64_t batches = seq * depth == 0 ? 0 : q.numel() / (seq * depth);
  const auto scale = static_cast<float>(attrs.get_float("scale"));
  Shape scores_shape = q.shape();
  scores_shape.back() = keys;
  const MaskIndexer mask_index(in.size() > 3 ? in[3]->shape() : Shape{1}, scores_shape);
  const uint16_t* mask = in.size() > 3 ? in[3]->data<uint16_t>() : nullptr;
  const uint16_t *qp = q.data<uint16_t>(), *kp = kt.data<uint16_t>(), *vp = v.data<uint16_t>();
  uint16_t* o = out.data<uint16_t>();
  parallel_ranges(batches * seq, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> p(static_cast<size_t>(keys));
    std::vector<float> acc(static_cast<size_t>(width));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t b = row / seq, s = row % seq;
      const uint16_t* qrow = qp + row * depth;
      const uint16_t* kb = kp + b * depth * keys;
      const uint16_t* vb = vp + b * keys * width;
      const int64_t mask_base = mask_index.base(b);
      // Each key's dot product summed over k in order, all keys at once (a
      // row of k^T is contiguous, so the loop over keys vectorizes).
      std::fill(p.begin(), p.end(), 0.0f);
      for (int64_t k = 0; k < depth; ++k) {
        const float qk = load_bf16(qrow[k]);
        const uint16_t* krow = kb + k * keys;
        for (int64_t t = 0; t < keys; ++t) p[static_cast<size_t>(t)] += qk * load_bf16(krow[t]);
      }
      float max = -std::numeric_limits<float>::infinity();
      for (int64_t t = 0; t < keys; ++t) {
        float dot = p[static_cast<size_t>(t)] * scale;
        if (mask != nullptr) dot += load_bf16(mask[mask_index.at(mask_base, s, t)]);
        p[static_cast<size_t>(t)] = dot;
        max = std::max(max, dot);
      }
      float sum = 0.0f;
      for (float& e : p) sum += (e = std::exp(e - max));
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t t = 0; t < keys; ++t) {
        const float weight = p[static_cast<size_t>(t)] / sum;
        for (int64_t e = 0; e < width; ++e) acc[static_cast<size_t>(e)] += weight * load_bf16(vb[t * width + e]);
      }
      for (int64_t e = 0; e < width; ++e) o[row * width + e] = store_bf16(acc[static_cast<size_t>(e)]);
    }
  });
}

// Keeps the top `bits` explicit mantissa bits of every bf16 value (truncation).
Tensor truncate_mantissa(const Tensor& x, int64_t bits) {
  if (x.dtype() != DType::BF16 || bits >= 7) return x;
  Tensor out(DType::BF16, x.shape());
  const uint16_t* in = x.data<uint16_t>();
  uint16_t* o = out.data<uint16_t>();
  const auto mask = static_cast<uint16_t>(0xffffu << (7 - bits));
  parallel_ranges(x.numel(), 1 << 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = static_cast<uint16_t>(in[i] & mask);
  });
  return out;
}

Tensor mantissa_low_slice(const Tensor& x, int64_t bits) {
  const Tensor high = truncate_mantissa(x, bits);
  Tensor out(x.dtype(), x.shape());
  if (x.dtype() != DType::BF16 || bits >= 7) return out;
  binary(OpKind::Sub, x, high, out);
  return out;
}

}  // namespace meshtest::runtime::device_kernels
