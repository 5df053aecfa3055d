// Typed readers of StableHLO op attributes for the importer: integer lists in
// whichever form the file used (array<i64: ...>, [..], dense<...>), enums,
// strings and the fields of #stablehlo.* struct attributes.
#include <cstdlib>

#include "core/error.h"
#include "frontends/stablehlo/stablehlo_importer.h"
#include "frontends/stablehlo/stablehlo_literals.h"

namespace meshtest::frontends::stablehlo {

std::vector<int64_t> attr_ints(const Importer& im, const Op& op, const Attribute* attr, const std::string& what) {
  if (attr == nullptr) return {};
  switch (attr->kind) {
    case Attribute::Kind::DenseArray:
      return attr->ints;
    case Attribute::Kind::Integer:
      return {attr->int_value};
    case Attribute::Kind::Bool:
      return {attr->bool_value ? 1 : 0};
    case Attribute::Kind::Array: {
      std::vector<int64_t> out;
      for (const AttrPtr& e : attr->elements) {
        const std::vector<int64_t> inner = attr_ints(im, op, e.get(), what);
        out.insert(out.end(), inner.begin(), inner.end());
      }
      return out;
    }
    case Attribute::Kind::Dense: {
      Tensor t;
      try {
        t = decode_dense(*attr, DType::I64, attr->type.dims);
      } catch (const Error& e) {
        im.unsupported(op, what + ": " + e.what());
      }
      std::vector<int64_t> out(static_cast<size_t>(t.numel()));
      for (int64_t i = 0; i < t.numel(); ++i) out[static_cast<size_t>(i)] = t.data<int64_t>()[i];
      return out;
    }
    default:
      im.unsupported(op, what + " is not an integer list (" + attr->text + ")");
  }
}

std::vector<int64_t> ints_attr(const Importer& im, const Op& op, const std::string& name,
                               std::optional<std::vector<int64_t>> fallback) {
  const Attribute* a = op.attr(name);
  if (a == nullptr) {
    if (!fallback) im.unsupported(op, "missing attribute " + name);
    return *fallback;
  }
  return attr_ints(im, op, a, name);
}

int64_t int_attr(const Importer& im, const Op& op, const std::string& name, std::optional<int64_t> fallback) {
  const Attribute* a = op.attr(name);
  if (a == nullptr) {
    if (!fallback) im.unsupported(op, "missing attribute " + name);
    return *fallback;
  }
  const std::vector<int64_t> v = attr_ints(im, op, a, name);
  if (v.size() != 1) im.unsupported(op, name + " must be one integer");
  return v[0];
}

std::vector<int64_t> struct_ints(const Importer& im, const Op& op, const Attribute& s, const std::string& field) {
  return attr_ints(im, op, s.field(field), field);
}

std::string enum_attr(const Op& op, const std::string& name, const std::string& fallback) {
  const Attribute* a = op.attr(name);
  if (a == nullptr) return fallback;
  return a->text;
}

std::string string_attr(const Op& op, const std::string& name) {
  const Attribute* a = op.attr(name);
  return a == nullptr ? "" : a->text;
}

const Attribute& struct_attr(const Importer& im, const Op& op, const std::string& name) {
  const Attribute* a = op.attr(name);
  if (a == nullptr) im.unsupported(op, "missing attribute " + name);
  if (a->kind != Attribute::Kind::Struct && a->kind != Attribute::Kind::Dictionary) {
    im.unsupported(op, name + " is not a struct attribute: " + a->text);
  }
  return *a;
}

bool flag_attr(const Op& op, const std::string& name) {
  const Attribute* a = op.attr(name);
  if (a == nullptr) return false;
  return a->kind == Attribute::Kind::Unit || (a->kind == Attribute::Kind::Bool && a->bool_value) ||
         (a->kind == Attribute::Kind::Integer && a->int_value != 0);
}

Tensor dense_tensor(const Importer& im, const Op& op, const Attribute& attr, const TensorType& type) {
  try {
    return decode_dense(attr, type.dtype, type.shape);
  } catch (const Error& e) {
    im.unsupported(op, e.what());
  }
}

}  // namespace meshtest::frontends::stablehlo
