// A canonical text form of the StableHLO reader's syntax tree, for tests:
// two spellings of the same program (pretty and generic form) must give the
// same string. SSA values are renamed v0, v1, ... in definition order and
// block labels dropped, so only structure, attributes and types remain.
#pragma once

#include <map>
#include <string>

#include "frontends/stablehlo/mlir_ast.h"

namespace meshtest::frontends::stablehlo::testing {

class CanonicalPrinter {
 public:
  std::string module(const Module& m) {
    std::string out = "module @" + m.name + " " + attrs(m.attributes) + "\n";
    for (const Function& f : m.functions) out += function(f);
    for (const Op& op : m.other_ops) out += this->op(op, 0);
    return out;
  }

  std::string function(const Function& f) {
    names_.clear();
    std::string out = "func " + f.visibility + " @" + f.name + "(";
    for (size_t i = 0; i < f.arguments.size(); ++i) {
      if (!f.arguments[i].name.empty()) define(f.arguments[i].name);
      out += (i ? ", " : "") + use(f.arguments[i].name) + ": " + type(f.arguments[i].type) + " " +
             attrs(f.arguments[i].attributes);
    }
    out += ") -> (";
    for (size_t i = 0; i < f.results.size(); ++i)
      out += (i ? ", " : "") + type(f.results[i].type) + " " + attrs(f.results[i].attributes);
    out += ") " + attrs(f.attributes) + "\n";
    // The entry block's arguments are the function's: already named.
    for (const Block& b : f.body.blocks) out += block(b, 1, /*define_args=*/&b != &f.body.blocks.front());
    return out;
  }

  std::string op(const Op& o, int indent) {
    std::string out(indent * 2, ' ');
    std::string operands;
    for (size_t i = 0; i < o.operands.size(); ++i) operands += (i ? ", " : "") + use(o.operands[i]);
    std::string regions;
    for (const Region& r : o.regions) {
      regions += " {\n";
      for (const Block& b : r.blocks) regions += block(b, indent + 1, true);
      regions += std::string(indent * 2, ' ') + "}";
    }
    for (size_t i = 0; i < o.results.size(); ++i) {
      define(o.results[i]);
      out += (i ? ", " : "") + use(o.results[i]);
    }
    if (!o.results.empty()) out += " = ";
    out += o.name + "(" + operands + ") " + attrs(o.attributes) + regions + " : (" + types(o.operand_types) + ") -> (" +
           types(o.result_types) + ")\n";
    return out;
  }

  static std::string type(const Type& t) {
    switch (t.kind) {
      case Type::Kind::Tensor: {
        std::string s = "tensor<";
        for (int64_t d : t.dims) s += (d == Type::kDynamic ? std::string("?") : std::to_string(d)) + "x";
        return s + t.element + (t.encoding.empty() ? "" : ", " + t.encoding) + ">";
      }
      case Type::Kind::Tuple:
        return "tuple<" + types(t.elements) + ">";
      case Type::Kind::Token:
        return "!stablehlo.token";
      case Type::Kind::Function:
        return "(" + types(t.elements) + ") -> (" + types(t.results) + ")";
      case Type::Kind::Scalar:
        return "scalar " + t.element;
      case Type::Kind::Other:
        return "other " + t.text;
    }
    return "?";
  }

  static std::string types(const std::vector<Type>& ts) {
    std::string s;
    for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + type(ts[i]);
    return s;
  }

  static std::string attrs(const NamedAttrs& a) {
    std::string s = "{";
    for (size_t i = 0; i < a.size(); ++i) s += (i ? ", " : "") + a[i].first + " = " + attr(*a[i].second);
    return s + "}";
  }

  static std::string attr(const Attribute& a) {
    switch (a.kind) {
      case Attribute::Kind::Unit:
        return "unit";
      case Attribute::Kind::Bool:
        return a.bool_value ? "true" : "false";
      case Attribute::Kind::Integer:
        return "int " + std::to_string(a.int_value) + " : " + type(a.type);
      case Attribute::Kind::Float:
        return "float " + a.text + " : " + type(a.type);
      case Attribute::Kind::String:
        return "\"" + a.text + "\"";
      case Attribute::Kind::Type:
        return "type " + type(a.type);
      case Attribute::Kind::SymbolRef:
        return "@" + a.text;
      case Attribute::Kind::Array: {
        std::string s = "[";
        for (size_t i = 0; i < a.elements.size(); ++i) s += (i ? ", " : "") + attr(*a.elements[i]);
        return s + "]";
      }
      case Attribute::Kind::DenseArray: {
        std::string s = "array<" + type(a.type) + ":";
        for (int64_t v : a.ints) s += " " + std::to_string(v);
        for (double v : a.dense_floats) s += " " + std::to_string(v);
        return s + ">";
      }
      case Attribute::Kind::Dense: {
        std::string s = "dense<";
        if (a.has_hex) {
          static const char* digits = "0123456789ABCDEF";
          s += "hex ";
          for (uint8_t b : a.hex) s += std::string(1, digits[b >> 4]) + digits[b & 15];
        } else if (!a.text.empty()) {
          s += a.text;
        } else {
          s += a.splat ? "splat" : "list";
          for (const DenseScalar& v : a.scalars) s += " " + (v.is_complex ? "(" + v.text + "," + v.imag + ")" : v.text);
        }
        return s + "> : " + type(a.type);
      }
      case Attribute::Kind::Dictionary:
        return "dict " + attrs(a.fields);
      case Attribute::Kind::Enum:
        return "enum " + a.dialect + "<" + a.enum_kind + " " + a.text + ">";
      case Attribute::Kind::Struct:
        return "struct " + a.dialect + attrs(a.fields);
      case Attribute::Kind::Opaque:
        return "opaque " + a.dialect + " " + a.text;
    }
    return "?";
  }

 private:
  std::string block(const Block& b, int indent, bool define_args) {
    std::string out = std::string(indent * 2, ' ') + "block(";
    for (size_t i = 0; i < b.arguments.size(); ++i) {
      if (define_args) define(b.arguments[i].name);
      out += (i ? ", " : "") + use(b.arguments[i].name) + ": " + type(b.arguments[i].type);
    }
    out += ")\n";
    for (const Op& o : b.ops) out += op(o, indent + 1);
    return out;
  }

  void define(const std::string& name) { names_[name] = "v" + std::to_string(next_++); }
  std::string use(const std::string& name) const {
    const auto it = names_.find(name);
    return it == names_.end() ? "<undefined " + name + ">" : it->second;
  }

  std::map<std::string, std::string> names_;
  int next_ = 0;
};

inline std::string canonical(const Module& m) { return CanonicalPrinter().module(m); }

}  // namespace meshtest::frontends::stablehlo::testing
