// Decoding of StableHLO element types and dense literals into tensors.
#include "frontends/stablehlo/stablehlo_literals.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>

#include "core/error.h"

namespace meshtest::frontends::stablehlo {

namespace {

// Writes the low bytes of `bits` (little endian host) as element `index`.
void store_bits(Tensor& t, int64_t index, uint64_t bits) {
  const size_t size = dtype_size(t.dtype());
  std::memcpy(static_cast<char*>(t.raw_data()) + static_cast<size_t>(index) * size, &bits, size);
}

void store_float(Tensor& t, int64_t index, double value) {
  switch (t.dtype()) {
    case DType::F64: {
      uint64_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      store_bits(t, index, bits);
      return;
    }
    case DType::F32: {
      const float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      store_bits(t, index, bits);
      return;
    }
    case DType::BF16:
      store_bits(t, index, f64_to_bf16(value));
      return;
    case DType::F16:
      store_bits(t, index, f64_to_f16(value));
      return;
    default:
      throw Error("a float literal for a " + std::string(dtype_name(t.dtype())) + " tensor");
  }
}

// A float literal: decimal, inf/nan, or 0x... (the element's bit pattern).
void store_float_text(Tensor& t, int64_t index, const std::string& text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    errno = 0;
    char* end = nullptr;
    const uint64_t bits = std::strtoull(text.c_str() + 2, &end, 16);
    if (errno != 0 || *end != '\0') throw Error("malformed float bit pattern '" + text + "'");
    store_bits(t, index, bits);
    return;
  }
  std::string s = text;
  const bool negative = !s.empty() && s[0] == '-';
  const std::string body = negative || (!s.empty() && s[0] == '+') ? s.substr(1) : s;
  double value;
  if (body == "inf" || body == "INF") {
    value = std::numeric_limits<double>::infinity();
  } else if (body == "nan" || body == "NAN") {
    value = std::numeric_limits<double>::quiet_NaN();
  } else {
    errno = 0;
    char* end = nullptr;
    value = std::strtod(body.c_str(), &end);
    if (body.empty() || *end != '\0') throw Error("malformed float literal '" + text + "'");
  }
  store_float(t, index, negative ? -value : value);
}

void store_integer_text(Tensor& t, int64_t index, const std::string& text) {
  if (text == "true" || text == "false") {
    store_bits(t, index, text == "true" ? 1 : 0);
    return;
  }
  errno = 0;
  char* end = nullptr;
  uint64_t bits;
  if (!text.empty() && text[0] == '-') {
    bits = static_cast<uint64_t>(std::strtoll(text.c_str(), &end, 0));
  } else {
    bits = std::strtoull(text.c_str(), &end, 0);
  }
  if (text.empty() || errno != 0 || *end != '\0') throw Error("malformed integer literal '" + text + "'");
  if (t.dtype() == DType::Bool) bits = bits != 0 ? 1 : 0;
  store_bits(t, index, bits);
}

}  // namespace

DType element_dtype(const std::string& element) {
  static const std::map<std::string, DType> kTypes = {
      {"f16", DType::F16},  {"f32", DType::F32},  {"f64", DType::F64}, {"bf16", DType::BF16}, {"i1", DType::Bool},
      {"i8", DType::I8},    {"i16", DType::I16},  {"i32", DType::I32}, {"i64", DType::I64},   {"ui8", DType::U8},
      {"ui16", DType::U16}, {"ui32", DType::U32}, {"ui64", DType::U64}};
  const auto it = kTypes.find(element);
  if (it != kTypes.end()) return it->second;
  if (element.rfind("complex", 0) == 0)
    throw Error("complex element type " + element + " (meshtest has no complex dtype)");
  if (element.find("quant") != std::string::npos) throw Error("quantized element type " + element);
  throw Error("element type " + element + " (meshtest has no such dtype)");
}

void store_scalar(Tensor& t, int64_t index, const std::string& text) {
  if (is_floating(t.dtype())) {
    store_float_text(t, index, text);
  } else {
    store_integer_text(t, index, text);
  }
}

Tensor decode_dense(const Attribute& attr, DType dtype, const Shape& shape) {
  if (attr.kind != Attribute::Kind::Dense) throw Error("expected a dense literal");
  Tensor t(dtype, shape);
  const int64_t n = t.numel();
  const size_t size = dtype_size(dtype);
  if (attr.has_hex) {
    if (attr.hex.size() == size && n != 1) {  // a splat given as one element's bytes
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(static_cast<char*>(t.raw_data()) + static_cast<size_t>(i) * size, attr.hex.data(), size);
      }
    } else if (attr.hex.size() == size * static_cast<size_t>(n)) {
      if (n > 0) std::memcpy(t.raw_data(), attr.hex.data(), attr.hex.size());
    } else {
      throw Error("hex literal of " + std::to_string(attr.hex.size()) + " bytes for " + std::to_string(n) +
                  " element(s) of " + std::string(dtype_name(dtype)));
    }
    if (dtype == DType::Bool) {  // i1 bytes: any non-zero is true
      auto* p = static_cast<uint8_t*>(t.raw_data());
      for (int64_t i = 0; i < n; ++i) p[i] = p[i] != 0;
    }
    return t;
  }
  for (const DenseScalar& s : attr.scalars) {
    if (s.is_complex) throw Error("complex literal");
  }
  if (attr.splat || attr.scalars.size() == 1) {
    if (attr.scalars.empty()) throw Error("empty splat literal");
    if (n > 0) store_scalar(t, 0, attr.scalars[0].text);
    for (int64_t i = 1; i < n; ++i) {
      std::memcpy(static_cast<char*>(t.raw_data()) + static_cast<size_t>(i) * size, t.raw_data(), size);
    }
    return t;
  }
  if (static_cast<int64_t>(attr.scalars.size()) != n) {
    throw Error("literal has " + std::to_string(attr.scalars.size()) + " element(s), its type " + std::to_string(n));
  }
  for (int64_t i = 0; i < n; ++i) store_scalar(t, i, attr.scalars[static_cast<size_t>(i)].text);
  return t;
}

}  // namespace meshtest::frontends::stablehlo
