// How the native loaders read sdk::LoadOptions: the model dtype (weights and
// float inputs) and validated integer overrides.
#pragma once

#include <optional>
#include <string_view>

#include "core/tensor.h"
#include "discovery/loader_sdk.h"

namespace meshtest::models {

// f32 unless dtype_override says otherwise. Only f32 and bf16 are accepted:
// bfp8_b is a weight-only storage format (ops need matching operand dtypes;
// use the compiler's weight conversion instead) and integers are not a model
// dtype. Throws meshtest::Error naming the loader otherwise.
DType model_dtype(const sdk::LoadOptions& options, std::string_view loader);

// `value` or `fallback`, checked to lie in [low, high]; throws meshtest::Error
// naming the option and the loader.
int64_t option_in_range(const std::optional<int64_t>& value, int64_t fallback, int64_t low, int64_t high,
                        std::string_view option, std::string_view loader);

struct SequenceDims {
  int64_t batch;
  int64_t seq;
};

// batch_size (default 1, at most 4096) and seq_len (default `default_seq`,
// at most `max_seq`).
SequenceDims sequence_dims(const sdk::LoadOptions& options, int64_t default_seq, int64_t max_seq,
                           std::string_view loader);

// A float sample input in the model dtype (f32 data converted by rounding).
Tensor float_input(const Tensor& f32, DType dtype);

}  // namespace meshtest::models
