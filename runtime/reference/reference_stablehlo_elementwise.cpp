// Reference kernels of the StableHLO elementwise ops (abs .. iota): generic
// over dtypes (core/dtype_dispatch.h), with the edge cases of
// core/elementwise_scalar.h. Float math runs in double and rounds once to the
// held dtype (f32, or f64); integers are exact and wrap; bool is 0/1.
#include <cmath>
#include <cstring>
#include <string>

#include "core/dtype_convert.h"
#include "core/dtype_dispatch.h"
#include "core/elementwise_scalar.h"
#include "core/error.h"
#include "runtime/reference/reference_broadcast_map.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runtime::reference {

namespace {

[[noreturn]] void unsupported(OpKind kind, DType dtype) {
  throw RuntimeError(std::string(op_name(kind)) + " does not apply to dtype " + std::string(dtype_name(dtype)));
}

// out = fn(x) computed in double, rounded to x's (floating) dtype.
template <class Fn>
Tensor float_map(OpKind kind, const Tensor& x, Fn fn) {
  return visit_dtype(x.dtype(), [&](auto tag) -> Tensor {
    using Tag = decltype(tag);
    using S = typename Tag::storage;
    using C = typename Tag::compute;
    if constexpr (Tag::floating) {
      return map_elements<S, S>(x, x.dtype(), [&](S s) {
        return Tag::store(static_cast<C>(fn(static_cast<double>(Tag::load(s)))));
      });
    } else {
      unsupported(kind, x.dtype());
    }
  });
}

// out = fn(x) computed in x's own compute type (float for every float held as
// f32, double for f64): for the ops StableHLO defines by a decomposition
// that XLA evaluates in the element type (chlo.sinh, chlo.cosh).
template <class Fn>
Tensor float_map_in_element_type(OpKind kind, const Tensor& x, Fn fn) {
  return visit_dtype(x.dtype(), [&](auto tag) -> Tensor {
    using Tag = decltype(tag);
    using S = typename Tag::storage;
    if constexpr (Tag::floating) {
      return map_elements<S, S>(x, x.dtype(), [&](S s) { return Tag::store(fn(Tag::load(s))); });
    } else {
      unsupported(kind, x.dtype());
    }
  });
}

// chlo.cosh and chlo.sinh as chlo's decomposition (what XLA computes; the
// halving inside the exponent keeps e^|x| / 2 from overflowing early).
template <class T>
T cosh_decomposed(T x) {
  const T log_half = std::log(T(0.5));
  return std::exp(x + log_half) + std::exp(-x + log_half);
}
template <class T>
T sinh_decomposed(T x) {
  if (std::fabs(x) < T(1)) {  // (e + e / (e + 1)) / 2 with e = expm1(x): accurate near 0
    const T e = std::expm1(x);
    return T(0.5) * (e + e / (e + T(1)));
  }
  const T log_half = std::log(T(0.5));
  return std::exp(x + log_half) - std::exp(-x + log_half);
}

// out = fn(a, b) computed in double, rounded to the operands' (floating) dtype.
template <class Fn>
Tensor float_zip(OpKind kind, const Tensor& a, const Tensor& b, Fn fn) {
  return visit_dtype(a.dtype(), [&](auto tag) -> Tensor {
    using Tag = decltype(tag);
    using S = typename Tag::storage;
    using C = typename Tag::compute;
    if constexpr (Tag::floating) {
      return map_broadcast<S, S, S>(a, b, a.dtype(), [&](S x, S y) {
        return Tag::store(static_cast<C>(fn(static_cast<double>(Tag::load(x)), static_cast<double>(Tag::load(y)))));
      });
    } else {
      unsupported(kind, a.dtype());
    }
  });
}

// out = fn(x) on the stored integers (bool: 0/1 when with_bool).
template <bool with_bool, class Fn>
Tensor integer_map(OpKind kind, const Tensor& x, Fn fn) {
  return visit_dtype(x.dtype(), [&](auto tag) -> Tensor {
    using Tag = decltype(tag);
    using S = typename Tag::storage;
    if constexpr (!Tag::floating && (with_bool || Tag::dtype != DType::Bool)) {
      return map_elements<S, S>(x, x.dtype(), [&](S v) { return static_cast<S>(fn(v)); });
    } else {
      unsupported(kind, x.dtype());
    }
  });
}

// out = fn(a, b) on the stored integers (bool included: 0/1).
template <class Fn>
Tensor integer_zip(OpKind kind, const Tensor& a, const Tensor& b, Fn fn) {
  return visit_dtype(a.dtype(), [&](auto tag) -> Tensor {
    using Tag = decltype(tag);
    using S = typename Tag::storage;
    if constexpr (!Tag::floating) {
      return map_broadcast<S, S, S>(a, b, a.dtype(), [&](S x, S y) { return static_cast<S>(fn(x, y)); });
    } else {
      unsupported(kind, a.dtype());
    }
  });
}

// Integer ops on the same operands as float ops pick by dtype.
template <class FloatFn, class IntFn>
Tensor numeric_map(OpKind kind, const Tensor& x, FloatFn float_fn, IntFn int_fn) {
  return is_floating(x.dtype()) ? float_map(kind, x, float_fn) : integer_map<false>(kind, x, int_fn);
}
template <class FloatFn, class IntFn>
Tensor numeric_zip(OpKind kind, const Tensor& a, const Tensor& b, FloatFn float_fn, IntFn int_fn) {
  return is_floating(a.dtype()) ? float_zip(kind, a, b, float_fn) : integer_zip(kind, a, b, int_fn);
}

void require_same_dtype(OpKind kind, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    throw RuntimeError(std::string(op_name(kind)) + ": operand dtypes differ: " + std::string(dtype_name(a.dtype())) +
                       " vs " + std::string(dtype_name(b.dtype())));
  }
}

// The IEEE binary format of a floating dtype's bits.
template <class UInt>
scalar::BinaryFormat<UInt> binary_format(DType dtype) {
  switch (dtype) {
    case DType::F16: return {5, 10};
    case DType::BF16: return {8, 7};
    case DType::F32: return {8, 23};
    case DType::F64: return {11, 52};
    default: break;
  }
  throw RuntimeError("dtype " + std::string(dtype_name(dtype)) + " is not an IEEE binary format");
}

// fn(format, bits...) on the bits of a floating tensor in its own dtype.
template <class Fn>
Tensor float_bits_map(OpKind kind, const Tensor& x, Fn fn) {
  return visit_dtype(x.dtype(), [&](auto tag) -> Tensor {
    using Tag = decltype(tag);
    using S = typename Tag::storage;
    if constexpr (Tag::floating) {
      using UInt = BitsOf<S>;
      const auto format = binary_format<UInt>(x.dtype());
      return map_elements<S, S>(x, x.dtype(), [&](S s) {
        UInt bits;
        std::memcpy(&bits, &s, sizeof bits);
        const UInt result = fn(format, bits);
        S out;
        std::memcpy(&out, &result, sizeof out);
        return out;
      });
    } else {
      unsupported(kind, x.dtype());
    }
  });
}

scalar::CompareDirection compare_direction(const std::string& text) {
  scalar::CompareDirection direction;
  if (!scalar::parse_compare_direction(text, direction)) throw RuntimeError("compare: unknown direction '" + text + "'");
  return direction;
}

}  // namespace

Tensor stablehlo_unary(OpKind kind, const Tensor& x) {
  using K = OpKind;
  switch (kind) {
    case K::Abs:
      return numeric_map(kind, x, [](double v) { return std::fabs(v); }, [](auto v) { return scalar::wrap_abs(v); });
    case K::Sign:
      return numeric_map(kind, x, [](double v) { return scalar::sign(v); }, [](auto v) { return scalar::sign(v); });
    case K::Floor: return float_map(kind, x, [](double v) { return std::floor(v); });
    case K::Ceil: return float_map(kind, x, [](double v) { return std::ceil(v); });
    case K::RoundAfz: return float_map(kind, x, [](double v) { return scalar::round_afz(v); });
    case K::RoundEven: return float_map(kind, x, [](double v) { return scalar::round_even(v); });
    case K::Expm1: return float_map(kind, x, [](double v) { return std::expm1(v); });
    case K::Log1p: return float_map(kind, x, [](double v) { return std::log1p(v); });
    case K::Cbrt: return float_map(kind, x, [](double v) { return std::cbrt(v); });
    case K::Tan: return float_map(kind, x, [](double v) { return std::tan(v); });
    case K::Sinh: return float_map_in_element_type(kind, x, [](auto v) { return sinh_decomposed(v); });
    case K::Cosh: return float_map_in_element_type(kind, x, [](auto v) { return cosh_decomposed(v); });
    case K::Asin: return float_map(kind, x, [](double v) { return std::asin(v); });
    case K::Acos: return float_map(kind, x, [](double v) { return std::acos(v); });
    case K::Atan: return float_map(kind, x, [](double v) { return std::atan(v); });
    case K::Asinh: return float_map(kind, x, [](double v) { return std::asinh(v); });
    case K::Acosh: return float_map(kind, x, [](double v) { return std::acosh(v); });
    case K::Atanh: return float_map(kind, x, [](double v) { return std::atanh(v); });
    case K::Erfc: return float_map(kind, x, [](double v) { return std::erfc(v); });
    case K::ErfInv: return float_map(kind, x, [](double v) { return scalar::erf_inv(v); });
    case K::Lgamma: return float_map(kind, x, [](double v) { return std::lgamma(v); });
    case K::Digamma: return float_map(kind, x, [](double v) { return scalar::digamma(v); });
    case K::Not:
      if (x.dtype() == DType::Bool) return integer_map<true>(kind, x, [](auto v) { return v == 0; });
      return integer_map<false>(kind, x, [](auto v) { return ~v; });
    case K::Popcnt: return integer_map<false>(kind, x, [](auto v) { return scalar::popcnt(v); });
    case K::Clz: return integer_map<false>(kind, x, [](auto v) { return scalar::clz(v); });
    case K::IsFinite:
      return visit_dtype(x.dtype(), [&](auto tag) -> Tensor {
        using Tag = decltype(tag);
        using S = typename Tag::storage;
        if constexpr (Tag::floating) {
          return map_elements<uint8_t, S>(x, DType::Bool, [](S s) { return std::isfinite(Tag::load(s)) ? 1 : 0; });
        } else {
          unsupported(kind, x.dtype());
        }
      });
    default:
      break;
  }
  throw RuntimeError("not a StableHLO unary op: " + std::string(op_name(kind)));
}

Tensor stablehlo_binary(OpKind kind, const Tensor& a, const Tensor& b) {
  using K = OpKind;
  require_same_dtype(kind, a, b);
  switch (kind) {
    case K::Minimum:
      return numeric_zip(kind, a, b, [](double x, double y) { return scalar::float_min(x, y); },
                         [](auto x, auto y) { return x < y ? x : y; });
    case K::Power:
      return numeric_zip(kind, a, b, [](double x, double y) { return std::pow(x, y); },
                         [](auto x, auto y) { return scalar::power_int(x, y); });
    case K::Remainder:
      return numeric_zip(kind, a, b, [](double x, double y) { return std::fmod(x, y); },
                         [](auto x, auto y) { return scalar::remainder_int(x, y); });
    case K::Atan2: return float_zip(kind, a, b, [](double x, double y) { return std::atan2(x, y); });
    case K::And: return integer_zip(kind, a, b, [](auto x, auto y) { return x & y; });
    case K::Or: return integer_zip(kind, a, b, [](auto x, auto y) { return x | y; });
    case K::Xor: return integer_zip(kind, a, b, [](auto x, auto y) { return x ^ y; });
    case K::ShiftLeft: return integer_zip(kind, a, b, [](auto x, auto y) { return scalar::shift_left(x, y); });
    case K::ShiftRightArithmetic:
      return integer_zip(kind, a, b, [](auto x, auto y) { return scalar::shift_right_arithmetic(x, y); });
    case K::ShiftRightLogical:
      return integer_zip(kind, a, b, [](auto x, auto y) { return scalar::shift_right_logical(x, y); });
    case K::NextAfter:
      // The operands in their own dtype (reads_operand_bits): one step of that format.
      return visit_dtype(a.dtype(), [&](auto tag) -> Tensor {
        using Tag = decltype(tag);
        using S = typename Tag::storage;
        if constexpr (Tag::floating) {
          using UInt = BitsOf<S>;
          const auto format = binary_format<UInt>(a.dtype());
          return map_broadcast<S, S, S>(a, b, a.dtype(), [&](S x, S y) {
            UInt from;
            UInt to;
            std::memcpy(&from, &x, sizeof from);
            std::memcpy(&to, &y, sizeof to);
            const UInt next = scalar::next_after_bits(format, from, to, static_cast<double>(Tag::load(x)),
                                                      static_cast<double>(Tag::load(y)));
            S out;
            std::memcpy(&out, &next, sizeof out);
            return out;
          });
        } else {
          unsupported(kind, a.dtype());
        }
      });
    default:
      break;
  }
  throw RuntimeError("not a StableHLO binary op: " + std::string(op_name(kind)));
}

Tensor compare(const Tensor& a, const Tensor& b, const Attrs& attrs) {
  require_same_dtype(OpKind::Compare, a, b);
  const scalar::CompareDirection direction = compare_direction(attrs.get_string("direction"));
  const bool total_order = attrs.get_string("compare_type", "NOTYPE") == "TOTALORDER";
  return visit_dtype(a.dtype(), [&](auto tag) -> Tensor {
    using Tag = decltype(tag);
    using S = typename Tag::storage;
    return map_broadcast<uint8_t, S, S>(a, b, DType::Bool, [&](S x, S y) -> uint8_t {
      if constexpr (Tag::floating) {
        const auto vx = static_cast<double>(Tag::load(x));
        const auto vy = static_cast<double>(Tag::load(y));
        if (total_order) return scalar::compare(direction, scalar::total_order_key(vx), scalar::total_order_key(vy));
        return scalar::compare(direction, vx, vy);
      } else {
        return scalar::compare(direction, x, y);
      }
    });
  });
}

Tensor select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false) {
  if (pred.dtype() != DType::Bool) throw RuntimeError("select: pred must be bool, got " + std::string(dtype_name(pred.dtype())));
  require_same_dtype(OpKind::Select, on_true, on_false);
  return visit_dtype(on_true.dtype(), [&](auto tag) -> Tensor {
    using S = typename decltype(tag)::storage;
    return map_broadcast<S, uint8_t, S, S>(pred, on_true, on_false, on_true.dtype(),
                                           [](uint8_t p, S x, S y) { return p ? x : y; });
  });
}

Tensor clamp(const Tensor& lo, const Tensor& x, const Tensor& hi) {
  require_same_dtype(OpKind::Clamp, lo, x);
  require_same_dtype(OpKind::Clamp, x, hi);
  return visit_dtype(x.dtype(), [&](auto tag) -> Tensor {
    using Tag = decltype(tag);
    using S = typename Tag::storage;
    return map_broadcast<S, S, S, S>(lo, x, hi, x.dtype(), [](S l, S v, S h) {
      if constexpr (Tag::floating) {
        return Tag::store(scalar::float_min(scalar::float_max(Tag::load(v), Tag::load(l)), Tag::load(h)));
      } else {
        const S low = v < l ? l : v;
        return low > h ? h : low;
      }
    });
  });
}

Tensor bitcast_convert(const Tensor& x, const Attrs& attrs) {
  const DType to = parse_dtype(attrs.get_string("dtype"));
  Tensor out(to, attrs.get_ints("shape"));
  if (out.nbytes() != x.nbytes()) {
    throw RuntimeError("bitcast_convert: " + std::to_string(x.nbytes()) + " bytes of " +
                       std::string(dtype_name(x.dtype())) + shape_to_string(x.shape()) + " do not fill " +
                       std::string(dtype_name(to)) + shape_to_string(out.shape()));
  }
  if (x.nbytes() > 0) std::memcpy(out.raw_data(), x.raw_data(), x.nbytes());
  return out;
}

Tensor reduce_precision(const Tensor& x, const Attrs& attrs) {
  const int exponent_bits = static_cast<int>(attrs.get_int("exponent_bits"));
  const int mantissa_bits = static_cast<int>(attrs.get_int("mantissa_bits"));
  return float_bits_map(OpKind::ReducePrecision, x, [&](auto format, auto bits) {
    return scalar::reduce_precision_bits(format, bits, exponent_bits, mantissa_bits);
  });
}

Tensor iota(const Attrs& attrs) {
  const DType dtype = parse_dtype(attrs.get_string("dtype"));
  const Shape shape = attrs.get_ints("shape");
  const auto dimension = static_cast<size_t>(attrs.get_int("dimension"));
  if (dimension >= shape.size()) throw RuntimeError("iota: dimension out of range for " + shape_to_string(shape));
  const int64_t stride = shape_strides(shape)[dimension];
  const int64_t extent = shape[dimension];
  Tensor out(dtype, shape);
  visit_dtype(dtype, [&](auto tag) {
    using Tag = decltype(tag);
    auto* o = storage<Tag>(out);
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = convert_element<Tag, DTypeTag<DType::I64>>((i / stride) % extent);
  });
  return out.to(held_dtype(dtype));
}

}  // namespace meshtest::runtime::reference
