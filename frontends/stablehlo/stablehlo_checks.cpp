// The check rules of stablehlo_checks.h: ULP distances in the expected
// element type, exact and absolute comparisons.
#include "frontends/stablehlo/stablehlo_checks.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "runtime/reference/reference_executor.h"

namespace meshtest::frontends::stablehlo {

namespace {

// `value` rounded to a float dtype, as its bit pattern.
uint64_t float_bits(double value, DType dtype) {
  switch (dtype) {
    case DType::F64: {
      uint64_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      return bits;
    }
    case DType::F32: {
      const float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      return bits;
    }
    case DType::BF16:
      return f64_to_bf16(value);
    case DType::F16:
      return f64_to_f16(value);
    default:
      return 0;
  }
}

// Sign-magnitude bits mapped onto a line where adjacent floats differ by one.
int64_t ordered(uint64_t bits, int width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  const auto magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) != 0 ? -magnitude : magnitude;
}

// |a - b| without overflow (the distance between two f64 codes can pass INT64_MAX).
uint64_t distance(int64_t a, int64_t b) {
  return a >= b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b) : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// Element i of both tensors equal as stored (integers: same value).
bool same_integer(const Tensor& got, const Tensor& want, int64_t i) {
  if (got.dtype() == want.dtype()) {
    const size_t size = dtype_size(want.dtype());
    return std::memcmp(static_cast<const char*>(got.raw_data()) + static_cast<size_t>(i) * size,
                       static_cast<const char*>(want.raw_data()) + static_cast<size_t>(i) * size, size) == 0;
  }
  return got.element_as_double(i) == want.element_as_double(i);
}

}  // namespace

CheckOutcome check_tensor(ExpectCheck::Kind kind, const Tensor& got, const Tensor& want, const std::string& what) {
  if (got.shape() != want.shape()) {
    return {false, what + ": shape " + shape_to_string(got.shape()) + ", expected " + shape_to_string(want.shape())};
  }
  const bool floating = is_floating(want.dtype());
  const int width = static_cast<int>(8 * dtype_size(want.dtype()));
  uint64_t worst_ulps = 0;
  int64_t first_bad = -1;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.element_as_double(i);
    const double w = want.element_as_double(i);
    bool ok;
    if (!floating) {
      ok = kind == ExpectCheck::Kind::AlmostEq ? std::fabs(g - w) <= kExpectAlmostEqTolerance
                                               : same_integer(got, want, i);
    } else if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else if (kind == ExpectCheck::Kind::AlmostEq) {
      ok = g == w || std::fabs(g - w) <= kExpectAlmostEqTolerance;
    } else {
      const uint64_t gb = float_bits(g, want.dtype());
      const uint64_t wb = float_bits(w, want.dtype());
      if (kind == ExpectCheck::Kind::Equal) {
        ok = gb == wb || (g == 0 && w == 0);
      } else if (!std::isfinite(w) || !std::isfinite(g)) {
        ok = gb == wb;
      } else {
        const uint64_t ulps = distance(ordered(gb, width), ordered(wb, width));
        worst_ulps = std::max(worst_ulps, ulps);
        ok = ulps <= static_cast<uint64_t>(kExpectCloseUlps);
      }
    }
    if (!ok && first_bad < 0) first_bad = i;
  }
  std::string message = what;
  if (kind == ExpectCheck::Kind::Close && floating) message += ": max " + std::to_string(worst_ulps) + " ULP";
  if (first_bad < 0) return {true, message};
  message += (kind == ExpectCheck::Kind::Close && floating ? ", " : ": ") + std::string("first mismatch at element ") +
             std::to_string(first_bad) + ": got " + number(got.element_as_double(first_bad)) + ", expected " +
             number(want.element_as_double(first_bad));
  return {false, message};
}

CheckOutcome check_framework_output(const Tensor& got, const Tensor& want, const std::string& what) {
  if (!is_floating(want.dtype())) return check_tensor(ExpectCheck::Kind::Equal, got, want, what);
  if (got.shape() != want.shape()) {
    return {false, what + ": shape " + shape_to_string(got.shape()) + ", expected " + shape_to_string(want.shape())};
  }
  double scale = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double w = want.element_as_double(i);
    if (std::isfinite(w)) scale = std::max(scale, std::fabs(w));
  }
  double worst = 0;
  int64_t first_bad = -1;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double g = got.element_as_double(i);
    const double w = want.element_as_double(i);
    bool ok;
    if (!std::isfinite(w) || !std::isfinite(g)) {
      ok = (std::isnan(w) && std::isnan(g)) || g == w;
    } else {
      const double err = std::fabs(g - w);
      worst = std::max(worst, err);
      ok = err <= kFrameworkRtol * std::fabs(w) + kFrameworkAtolScale * scale;
    }
    if (!ok && first_bad < 0) first_bad = i;
  }
  std::string message = what + ": max |got - want| " + number(worst) + " (max|want| " + number(scale) + ")";
  if (first_bad < 0) return {true, message};
  return {false, message + ", first mismatch at element " + std::to_string(first_bad) + ": got " +
                     number(got.element_as_double(first_bad)) + ", expected " +
                     number(want.element_as_double(first_bad))};
}

std::vector<CheckOutcome> evaluate_checks(const std::vector<ExpectCheck>& checks,
                                          const std::map<std::string, Tensor>& outputs) {
  static const char* kNames[] = {"expect_close", "expect_eq", "expect_almost_eq"};
  std::vector<CheckOutcome> out;
  for (const ExpectCheck& c : checks) {
    const std::string what =
        std::string(kNames[static_cast<int>(c.kind)]) + " " + c.output + " (line " + std::to_string(c.loc.line) + ")";
    const auto it = outputs.find(c.output);
    if (it == outputs.end()) {
      out.push_back({false, what + ": no such output"});
      continue;
    }
    out.push_back(check_tensor(c.kind, it->second, c.expected, what));
  }
  return out;
}

std::map<std::string, Tensor> outputs_by_name(const Graph& graph, const std::vector<Tensor>& outputs) {
  std::map<std::string, Tensor> named;
  for (size_t i = 0; i < graph.outputs.size() && i < outputs.size(); ++i) named[graph.outputs[i].name] = outputs[i];
  return named;
}

std::map<std::string, Tensor> run_reference_in_program_types(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
  return outputs_by_name(graph, runtime::run_reference(graph, inputs, runtime::ReferenceOptions{.round_bf16_results = true}));
}

}  // namespace meshtest::frontends::stablehlo
