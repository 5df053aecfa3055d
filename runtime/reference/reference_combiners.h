// Private to runtime/reference: the named combiners of reduce, reduce_window,
// scatter and select_and_scatter applied to one pair of values in a dtype's
// compute type: floats IEEE (max/min propagate NaN and order -0 < +0),
// integers with two's-complement wrap-around, bool add/max as or and mul/min
// as and (StableHLO's i1 arithmetic).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/error.h"

namespace meshtest::runtime::reference {

enum class Combiner { Assign, Add, Mul, Max, Min, And, Or, Xor };

inline Combiner parse_combiner(const std::string& name) {
  static const std::pair<const char*, Combiner> kNames[] = {
      {"assign", Combiner::Assign}, {"add", Combiner::Add}, {"mul", Combiner::Mul}, {"max", Combiner::Max},
      {"min", Combiner::Min},       {"and", Combiner::And}, {"or", Combiner::Or},   {"xor", Combiner::Xor}};
  for (const auto& [text, combiner] : kNames) {
    if (name == text) return combiner;
  }
  throw RuntimeError("unknown combiner '" + name + "'");
}

// acc (op) v for a compute type C (float, double, an integer type or bool).
template <class C>
C combine(Combiner combiner, C acc, C v) {
  if (combiner == Combiner::Assign) return v;
  if constexpr (std::is_same_v<C, bool>) {
    switch (combiner) {
      case Combiner::Add:
      case Combiner::Max:
      case Combiner::Or:
        return acc || v;
      case Combiner::Mul:
      case Combiner::Min:
      case Combiner::And:
        return acc && v;
      case Combiner::Xor:
        return acc != v;
      default:
        break;
    }
  } else if constexpr (std::is_floating_point_v<C>) {
    switch (combiner) {
      case Combiner::Add:
        return acc + v;
      case Combiner::Mul:
        return acc * v;
      case Combiner::Max:
        if (std::isnan(acc) || std::isnan(v)) return std::isnan(acc) ? acc : v;
        if (acc == v) return std::signbit(acc) ? v : acc;
        return acc > v ? acc : v;
      case Combiner::Min:
        if (std::isnan(acc) || std::isnan(v)) return std::isnan(acc) ? acc : v;
        if (acc == v) return std::signbit(acc) ? acc : v;
        return acc < v ? acc : v;
      default:
        throw RuntimeError("bitwise combiners need integer elements");
    }
  } else {
    using U = std::make_unsigned_t<C>;
    // Widened to uint64 first: no promotion to int can overflow (u16 * u16).
    const uint64_t a = static_cast<U>(acc), b = static_cast<U>(v);
    switch (combiner) {
      case Combiner::Add:
        return static_cast<C>(static_cast<U>(a + b));
      case Combiner::Mul:
        return static_cast<C>(static_cast<U>(a * b));
      case Combiner::Max:
        return acc > v ? acc : v;
      case Combiner::Min:
        return acc < v ? acc : v;
      case Combiner::And:
        return static_cast<C>(static_cast<U>(a & b));
      case Combiner::Or:
        return static_cast<C>(static_cast<U>(a | b));
      case Combiner::Xor:
        return static_cast<C>(static_cast<U>(a ^ b));
      default:
        break;
    }
  }
  return v;
}

}  // namespace meshtest::runtime::reference
