// Type, literal and sharding spellings of the StableHLO writer.
#include "frontends/stablehlo/stablehlo_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.h"

namespace meshtest::frontends::stablehlo {

std::string element_type(DType dtype) {
  switch (dtype) {
    case DType::F32:
    case DType::BFP8_B:
      return "f32";
    case DType::BF16:
      return "bf16";
    case DType::F16:
      return "f16";
    case DType::F64:
      return "f64";
    case DType::Bool:
      return "i1";
    case DType::I8:
      return "i8";
    case DType::I16:
      return "i16";
    case DType::I32:
      return "i32";
    case DType::I64:
      return "i64";
    case DType::U8:
      return "ui8";
    case DType::U16:
      return "ui16";
    case DType::U32:
      return "ui32";
    case DType::U64:
      return "ui64";
  }
  throw CompileError("stablehlo writer: no element type for dtype #" + std::to_string(static_cast<int>(dtype)));
}

DType written_dtype(DType dtype) { return dtype == DType::BFP8_B ? DType::F32 : dtype; }

std::string tensor_type(DType dtype, const Shape& shape) {
  std::string text = "tensor<";
  for (int64_t d : shape) text += std::to_string(d) + "x";
  return text + element_type(dtype) + ">";
}

std::string tensor_type(const TensorType& type) { return tensor_type(type.dtype, type.shape); }

std::string scalar_type(DType dtype) { return tensor_type(dtype, {}); }

namespace {

// `value` rounded to `dtype` as a double (the value the literal must keep).
double round_to(double value, DType dtype) {
  switch (dtype) {
    case DType::F32:
    case DType::BFP8_B:
      return static_cast<double>(static_cast<float>(value));
    case DType::BF16:
      return static_cast<double>(bf16_to_f32(f64_to_bf16(value)));
    case DType::F16:
      return static_cast<double>(f16_to_f32(f64_to_f16(value)));
    default:
      return value;
  }
}

// The bits of a non-finite float as MLIR's hex float literal.
std::string non_finite_literal(double value, DType dtype) {
  const bool negative = std::signbit(value);
  const bool nan = std::isnan(value);
  char text[32];
  switch (dtype) {
    case DType::F64:
      std::snprintf(text, sizeof text, "0x%016llX",
                    static_cast<unsigned long long>((negative ? 0xFFF0000000000000ull : 0x7FF0000000000000ull) |
                                                    (nan ? 0x0008000000000000ull : 0)));
      break;
    case DType::BF16:
      std::snprintf(text, sizeof text, "0x%04X", (negative ? 0xFF80u : 0x7F80u) | (nan ? 0x0040u : 0));
      break;
    case DType::F16:
      std::snprintf(text, sizeof text, "0x%04X", (negative ? 0xFC00u : 0x7C00u) | (nan ? 0x0200u : 0));
      break;
    default:
      std::snprintf(text, sizeof text, "0x%08X", (negative ? 0xFF800000u : 0x7F800000u) | (nan ? 0x00400000u : 0));
      break;
  }
  return text;
}

std::string float_literal(double value, DType dtype) {
  if (!std::isfinite(value)) return non_finite_literal(value, dtype);
  const double kept = round_to(value, dtype);
  const int max_digits = dtype == DType::F64 ? 16 : 8;
  char text[64];
  for (int digits = 6; digits <= max_digits; ++digits) {
    std::snprintf(text, sizeof text, "%.*e", digits, kept);
    if (round_to(std::strtod(text, nullptr), dtype) == kept) break;
  }
  return text;
}

template <class T>
void append_hex(std::string& out, const T* data, int64_t count) {
  static const char* digits = "0123456789ABCDEF";
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  const size_t n = static_cast<size_t>(count) * sizeof(T);
  out.reserve(out.size() + 2 * n);
  for (size_t i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
}

// [[a, b], [c, d]] of the elements' literals, nested by `shape`.
std::string nested_list(const std::vector<std::string>& elements, const Shape& shape, size_t dim, size_t& next) {
  if (dim == shape.size()) return elements[next++];
  std::string text = "[";
  for (int64_t i = 0; i < shape[dim]; ++i) {
    if (i > 0) text += ", ";
    text += nested_list(elements, shape, dim + 1, next);
  }
  return text + "]";
}

}  // namespace

std::string scalar_literal(double value, DType dtype) {
  if (dtype == DType::Bool) return value != 0 ? "true" : "false";
  if (is_floating(dtype)) return float_literal(value, dtype);
  // Doubles at or past 2^63 / 2^64 are the types' greatest values (their casts would overflow).
  if (dtype == DType::U64) {
    return value >= 0x1p64 ? std::to_string(UINT64_MAX) : std::to_string(static_cast<uint64_t>(std::max(value, 0.0)));
  }
  return value >= 0x1p63 ? std::to_string(INT64_MAX) : std::to_string(static_cast<int64_t>(value));
}

double lowest_value(DType dtype) {
  if (is_floating(dtype)) return -INFINITY;
  if (dtype == DType::Bool || is_unsigned_integer(dtype)) return 0.0;
  return -std::ldexp(1.0, dtype_bits(dtype) - 1);
}

double highest_value(DType dtype) {
  if (is_floating(dtype)) return INFINITY;
  if (dtype == DType::Bool) return 1.0;
  const int value_bits = is_unsigned_integer(dtype) ? dtype_bits(dtype) : dtype_bits(dtype) - 1;
  return std::ldexp(1.0, value_bits) - 1.0;  // rounds to 2^63 / 2^64 for the 64-bit types: written exactly above
}

std::string dense_literal(const Tensor& tensor, DType written) {
  const Tensor data = tensor.dtype() == written ? tensor : tensor.to(written);
  const int64_t n = data.numel();
  const size_t width = dtype_size(written);
  const auto* bytes = static_cast<const unsigned char*>(data.raw_data());
  bool splat = n > 0;
  for (int64_t i = 1; i < n && splat; ++i) {
    splat = std::memcmp(bytes, bytes + static_cast<size_t>(i) * width, width) == 0;
  }
  if (splat) return "dense<" + scalar_literal(data.element_as_double(0), written) + ">";
  if (n == 0) return "dense<>";
  if (written == DType::Bool) {  // i1 has no byte-per-element hex form in every MLIR version: write the list
    std::vector<std::string> elements;
    for (int64_t i = 0; i < n; ++i) elements.push_back(bytes[i] != 0 ? "true" : "false");
    size_t next = 0;
    return "dense<" + nested_list(elements, data.shape(), 0, next) + ">";
  }
  std::string text = "dense<\"0x";
  append_hex(text, bytes, static_cast<int64_t>(static_cast<size_t>(n) * width));
  return text + "\">";
}

std::string int_list(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string i64_array(const std::vector<int64_t>& values) {
  if (values.empty()) return "array<i64>";
  std::string text = "array<i64: ";
  for (size_t i = 0; i < values.size(); ++i) text += (i > 0 ? ", " : "") + std::to_string(values[i]);
  return text + ">";
}

std::string i64_matrix(const std::vector<std::vector<int64_t>>& rows) {
  std::string text = "dense<[";
  for (size_t r = 0; r < rows.size(); ++r) text += (r > 0 ? ", " : "") + int_list(rows[r]);
  const size_t cols = rows.empty() ? 0 : rows[0].size();
  return text + "]> : tensor<" + std::to_string(rows.size()) + "x" + std::to_string(cols) + "xi64>";
}

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7f) {
      char esc[4];
      std::snprintf(esc, sizeof esc, "\\%02X", c);
      out += esc;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string hlo_sharding(const Mesh& mesh, const Sharding& sharding, size_t rank) {
  if (sharding.is_replicated() || rank == 0) return "{replicated}";
  if (sharding.dims.size() != rank) {
    throw CompileError("stablehlo writer: a sharding of " + std::to_string(sharding.dims.size()) +
                       " dims for a tensor of rank " + std::to_string(rank));
  }
  std::vector<int> order;  // mesh axes: each dim's split axes, then the unused ones
  std::vector<bool> used(mesh.shape.size(), false);
  std::vector<int64_t> tiles;
  for (const auto& axes : sharding.dims) {
    tiles.push_back(axes_size(mesh, axes));
    for (int a : axes) {
      order.push_back(a);
      used[static_cast<size_t>(a)] = true;
    }
  }
  int64_t replicas = 1;
  for (size_t a = 0; a < used.size(); ++a) {
    if (used[a]) continue;
    order.push_back(static_cast<int>(a));
    replicas *= mesh.shape[a];
  }
  std::string text = "{devices=[";
  for (size_t d = 0; d < tiles.size(); ++d) text += (d > 0 ? "," : "") + std::to_string(tiles[d]);
  if (replicas > 1) text += "," + std::to_string(replicas);
  // Axes of one chip change no tile: the device order is the iota of the
  // other axes, transposed when the split takes them out of mesh order.
  std::vector<int> kept;  // mesh axes of more than one chip, in mesh order
  for (size_t a = 0; a < mesh.shape.size(); ++a) {
    if (mesh.shape[a] > 1) kept.push_back(static_cast<int>(a));
  }
  std::vector<int> perm;  // `order` over the kept axes, as positions in `kept`
  for (int a : order) {
    const auto at = std::find(kept.begin(), kept.end(), a);
    if (at != kept.end()) perm.push_back(static_cast<int>(at - kept.begin()));
  }
  if (std::is_sorted(perm.begin(), perm.end())) {
    text += "]<=[" + std::to_string(mesh.size()) + "]";
  } else {
    text += "]<=[";
    for (size_t i = 0; i < kept.size(); ++i) text += (i > 0 ? "," : "") + std::to_string(mesh.shape[kept[i]]);
    text += "]T(";
    for (size_t i = 0; i < perm.size(); ++i) text += (i > 0 ? "," : "") + std::to_string(perm[i]);
    text += ")";
  }
  if (replicas > 1) text += " last_tile_dim_replicate";
  return text + "}";
}

}  // namespace meshtest::frontends::stablehlo
