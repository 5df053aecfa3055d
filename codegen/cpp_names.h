// C++ spellings for generated code: identifiers made from IR names (unique,
// never a keyword), and literals for strings, attribute values and shapes.
#pragma once

#include <set>
#include <string>

#include "core/attrs.h"
#include "core/dtype.h"
#include "core/sharding.h"
#include "core/tensor.h"

namespace meshtest::codegen {

// Hands out identifiers: `name` with every character outside [A-Za-z0-9_]
// as '_', prefixed with "t_" when it starts with a digit or is a C++ keyword
// or reserved, suffixed "_2", "_3", ... when already taken.
class Identifiers {
 public:
  // `reserved`: names the generated code itself uses.
  explicit Identifiers(std::set<std::string> reserved) : taken_(std::move(reserved)) {}
  std::string make(const std::string& name);

 private:
  std::set<std::string> taken_;
};

// "..." with C++ escapes.
std::string cpp_string(const std::string& s);
// {{"key", value}, ...} for meshtest::Attrs (device_api.h's Ints / i64 spelling); "{}" when empty.
std::string cpp_attrs(const Attrs& attrs);
// {1, 64, 112, 112}
std::string cpp_shape(const Shape& shape);
// DType::BF16
std::string cpp_dtype(DType dtype);
// Sharding{{{0}, {}}}
std::string cpp_sharding(const Sharding& sharding);
// Mesh{{1, 2}, {"batch", "model"}}
std::string cpp_mesh(const Mesh& mesh);

}  // namespace meshtest::codegen
