// LoadOptions interpretation shared by the native loaders.
#include "models/common/load_options.h"

#include <string>

#include "core/error.h"

namespace meshtest::models {

DType model_dtype(const sdk::LoadOptions& options, std::string_view loader) {
  if (!options.dtype_override) return DType::F32;
  const DType d = *options.dtype_override;
  if (d == DType::F32 || d == DType::BF16) return d;
  throw Error(std::string(loader) + ": dtype_override " + std::string(dtype_name(d)) +
              " is not supported (f32 or bf16; bfp8_b is a weight-only format, "
              "use enable_weight_bfp8_conversion)");
}

int64_t option_in_range(const std::optional<int64_t>& value, int64_t fallback, int64_t low, int64_t high,
                        std::string_view option, std::string_view loader) {
  const int64_t v = value.value_or(fallback);
  if (v < low || v > high) {
    throw Error(std::string(loader) + ": " + std::string(option) + " " + std::to_string(v) + " is out of range [" +
                std::to_string(low) + ", " + std::to_string(high) + "]");
  }
  return v;
}

Tensor float_input(const Tensor& f32, DType dtype) { return f32.to(dtype); }

SequenceDims sequence_dims(const sdk::LoadOptions& options, int64_t default_seq, int64_t max_seq,
                           std::string_view loader) {
  return {option_in_range(options.batch_size, 1, 1, 1 << 12, "batch_size", loader),
          option_in_range(options.seq_len, default_seq, 1, max_seq, "seq_len", loader)};
}

}  // namespace meshtest::models
