// RoPE tables (host side, f64 then rounded) and the rotate_half application.
#include "models/common/rotary.h"

#include <cmath>
#include <numbers>
#include <vector>

#include "core/error.h"
#include "models/common/load_options.h"

namespace meshtest::models {
namespace {

double scaled_frequency(double freq, const Llama3RopeScaling& s) {
  const double low_freq_wavelen = s.original_max_position / s.low_freq_factor;
  const double high_freq_wavelen = s.original_max_position / s.high_freq_factor;
  const double wavelen = 2.0 * std::numbers::pi / freq;
  if (wavelen < high_freq_wavelen) return freq;
  if (wavelen > low_freq_wavelen) return freq / s.factor;
  const double smooth =
      (s.original_max_position / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
  return (1.0 - smooth) * freq / s.factor + smooth * freq;
}

}  // namespace

RopeTables rope_tables(const RopeConfig& config, int64_t seq, DType dtype, int64_t first) {
  const int64_t d = config.head_dim;
  if (d <= 0 || d % 2 != 0) throw Error("rope: head_dim must be even and positive");
  std::vector<double> inv_freq(static_cast<size_t>(d / 2));
  for (int64_t i = 0; i < d / 2; ++i) {
    const double freq = 1.0 / std::pow(config.theta, static_cast<double>(2 * i) / static_cast<double>(d));
    inv_freq[static_cast<size_t>(i)] = config.scaling ? scaled_frequency(freq, *config.scaling) : freq;
  }
  std::vector<float> cos(static_cast<size_t>(seq * d));
  std::vector<float> sin(cos.size());
  for (int64_t s = 0; s < seq; ++s) {
    for (int64_t i = 0; i < d; ++i) {
      const double angle = static_cast<double>(first + s) * inv_freq[static_cast<size_t>(i % (d / 2))];
      cos[static_cast<size_t>(s * d + i)] = static_cast<float>(std::cos(angle));
      sin[static_cast<size_t>(s * d + i)] = static_cast<float>(std::sin(angle));
    }
  }
  return {float_input(Tensor::from_f32({seq, d}, cos), dtype), float_input(Tensor::from_f32({seq, d}, sin), dtype)};
}

ValueId apply_rotary(GraphBuilder& b, ValueId x, ValueId cos, ValueId sin) {
  const int64_t d = b.shape(x).back();
  const int64_t last = static_cast<int64_t>(b.shape(x).size()) - 1;
  const ValueId x1 = b.slice(x, last, 0, d / 2);
  const ValueId x2 = b.slice(x, last, d / 2, d);
  const ValueId rotated = b.concat({b.op(OpKind::Neg, {x2}), x1}, last);
  return b.add(b.mul(x, cos), b.mul(rotated, sin));
}

}  // namespace meshtest::models
