// Seed derivation and initializer factories (see init.h for the conventions).
#include "models/common/init.h"

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/rng.h"

namespace meshtest::models {

uint64_t param_seed(std::string_view variant, std::string_view param_name) {
  std::string key(variant);
  key += '/';
  key += param_name;
  return hash_seed(key);
}

uint64_t input_seed(std::string_view variant, std::string_view input_name) {
  std::string key(variant);
  key += "/inputs/";
  key += input_name;
  return hash_seed(key);
}

int64_t fan_in(const Shape& weight_shape) {
  if (weight_shape.size() < 2) throw Error("fan_in needs a weight of rank >= 2, got " + shape_to_string(weight_shape));
  int64_t receptive = 1;
  for (size_t i = 2; i < weight_shape.size(); ++i) receptive *= weight_shape[i];
  return weight_shape[1] * receptive;
}

int64_t fan_out(const Shape& weight_shape) {
  if (weight_shape.size() < 2) throw Error("fan_out needs a weight of rank >= 2, got " + shape_to_string(weight_shape));
  int64_t receptive = 1;
  for (size_t i = 2; i < weight_shape.size(); ++i) receptive *= weight_shape[i];
  return weight_shape[0] * receptive;
}

namespace init {

Initializer normal(double mean, double stddev) { return Initializer::normal(mean, stddev, 0); }
Initializer uniform(double low, double high) { return Initializer::uniform(low, high, 0); }
Initializer zeros() { return Initializer::constant(0.0); }
Initializer ones() { return Initializer::constant(1.0); }

Initializer kaiming_normal(int64_t fan) {
  if (fan <= 0) throw Error("kaiming_normal needs a positive fan, got " + std::to_string(fan));
  return normal(0.0, std::sqrt(2.0 / static_cast<double>(fan)));
}

Initializer torch_linear_default(int64_t in_features) {
  if (in_features <= 0) throw Error("torch_linear_default needs positive in_features");
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  return uniform(-bound, bound);
}

Initializer bias(double stddev) { return normal(0.0, stddev); }
Initializer norm_gain() { return uniform(0.5, 1.5); }
Initializer norm_shift() { return normal(0.0, 0.2); }

Initializer query_key(int64_t hidden, double score_std) {
  if (hidden <= 0 || score_std <= 0) throw Error("query_key needs a positive hidden size and score std");
  return normal(0.0, std::sqrt(score_std / static_cast<double>(hidden)));
}

}  // namespace init
}  // namespace meshtest::models
