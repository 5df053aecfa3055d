// Identifiers and literals of generated C++ (see cpp_names.h).
#include "codegen/cpp_names.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <variant>

namespace meshtest::codegen {

namespace {

const std::set<std::string>& keywords() {
  static const std::set<std::string> k = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
      "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register", "reinterpret_cast",
      "requires", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
      "switch", "template", "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
      "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "main"};
  return k;
}

bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string cpp_double(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) return v < 0 ? "-std::numeric_limits<double>::infinity()" : "std::numeric_limits<double>::infinity()";
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);  // shortest form that reads back exactly
  std::string s(buf, result.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string cpp_int(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min()) return "std::numeric_limits<int64_t>::min()";
  return std::to_string(v);
}

struct ValueSpelling {
  std::string operator()(int64_t v) const { return "i64(" + cpp_int(v) + ")"; }
  std::string operator()(double v) const { return cpp_double(v); }
  std::string operator()(const std::string& v) const { return "std::string(" + cpp_string(v) + ")"; }
  std::string operator()(const std::vector<int64_t>& v) const {
    std::string s = "Ints{";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + cpp_int(v[i]);
    return s + "}";
  }
};

}  // namespace

std::string Identifiers::make(const std::string& name) {
  std::string base;
  for (char c : name) base += ident_char(c) ? c : '_';
  const bool reserved_start = base.empty() || (base[0] >= '0' && base[0] <= '9') || base.rfind("__", 0) == 0 ||
                              (base.size() > 1 && base[0] == '_' && base[1] >= 'A' && base[1] <= 'Z');
  if (reserved_start || keywords().count(base)) base = "t_" + base;
  std::string id = base;
  for (int n = 2; taken_.count(id); ++n) id = base + "_" + std::to_string(n);
  taken_.insert(id);
  return id;
}

std::string cpp_string(const std::string& s) {
  static const char* kHex = "0123456789abcdef";
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      out += "\"\"";  // a hex escape ends here, whatever follows
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string cpp_attrs(const Attrs& attrs) {
  if (attrs.values().empty()) return "{}";
  std::string s = "{";
  bool first = true;
  for (const auto& [key, value] : attrs.values()) {
    s += first ? "{" : ", {";
    first = false;
    s += cpp_string(key) + ", " + std::visit(ValueSpelling{}, value) + "}";
  }
  return s + "}";
}

std::string cpp_shape(const Shape& shape) {
  std::string s = "{";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "}";
}

std::string cpp_dtype(DType dtype) {
  switch (dtype) {
    case DType::F32: return "DType::F32";
    case DType::BF16: return "DType::BF16";
    case DType::BFP8_B: return "DType::BFP8_B";
    case DType::I32: return "DType::I32";
    case DType::I64: return "DType::I64";
    case DType::Bool: return "DType::Bool";
    case DType::F16: return "DType::F16";
    case DType::F64: return "DType::F64";
    case DType::I8: return "DType::I8";
    case DType::I16: return "DType::I16";
    case DType::U8: return "DType::U8";
    case DType::U16: return "DType::U16";
    case DType::U32: return "DType::U32";
    case DType::U64: return "DType::U64";
  }
  return "DType::F32";
}

std::string cpp_sharding(const Sharding& sharding) {
  std::string s = "Sharding{{";
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    s += d ? ", {" : "{";
    for (size_t k = 0; k < sharding.dims[d].size(); ++k) s += (k ? ", " : "") + std::to_string(sharding.dims[d][k]);
    s += "}";
  }
  return s + "}}";
}

std::string cpp_mesh(const Mesh& mesh) {
  std::string names;
  for (size_t i = 0; i < mesh.axis_names.size(); ++i) names += (i ? ", " : "") + cpp_string(mesh.axis_names[i]);
  return "Mesh{" + cpp_shape(mesh.shape) + ", {" + names + "}}";
}

}  // namespace meshtest::codegen
