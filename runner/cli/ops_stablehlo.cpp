// StableHLO ops for the op-by-op sweep: each top-level op of each function,
// keyed, located, and cut out into a one-op module the importer turns into a
// meshtest graph.
#include "runner/cli/ops_stablehlo.h"

#include <set>

#include "core/error.h"
#include "frontends/stablehlo/mlir_parser.h"
#include "frontends/stablehlo/stablehlo_import.h"

namespace meshtest::runner {

namespace {

namespace shlo = frontends::stablehlo;

// Ops that are values or structure, not computations: constants travel with
// the ops that use them, terminators with their function or region.
bool swept(const shlo::Op& op) {
  static const std::set<std::string> not_ops = {"stablehlo.constant", "arith.constant", "func.return",
                                                "stablehlo.return"};
  return not_ops.count(op.name) == 0;
}

std::string types_text(const std::vector<shlo::Type>& types) {
  std::string s;
  for (const shlo::Type& t : types) s += (s.empty() ? "" : ", ") + t.text;
  return s;
}

std::string attr_text(const shlo::Attribute& a);

std::string attrs_text(const shlo::NamedAttrs& attrs) {
  std::string s = "{";
  for (const auto& [name, value] : attrs) s += (s.size() > 1 ? ", " : "") + name + " = " + attr_text(*value);
  return s + "}";
}

std::string hex_text(const std::vector<uint8_t>& bytes) {
  static const char* digits = "0123456789ABCDEF";
  std::string s;
  for (uint8_t b : bytes) s += std::string{digits[b >> 4], digits[b & 15]};
  return s;
}

// An attribute as MLIR-like text that tells any two values apart (the key
// shows in ops.jsonl, so it stays readable).
std::string attr_text(const shlo::Attribute& a) {
  using K = shlo::Attribute::Kind;
  auto joined = [](const auto& values, auto&& text) {
    std::string s;
    for (const auto& v : values) s += (s.empty() ? "" : ", ") + text(v);
    return s;
  };
  switch (a.kind) {
    case K::Unit:
      return "unit";
    case K::Bool:
      return a.bool_value ? "true" : "false";
    case K::Integer:
    case K::Float:
      return a.text + " : " + a.type.text;
    case K::String:
      return "\"" + a.text + "\"";
    case K::Type:
      return a.type.text;
    case K::SymbolRef:
      return "@" + a.text;
    case K::Array:
      return "[" + joined(a.elements, [](const shlo::AttrPtr& e) { return attr_text(*e); }) + "]";
    case K::DenseArray:
      return "array<" + a.type.text + ": " + joined(a.ints, [](int64_t v) { return std::to_string(v); }) +
             joined(a.dense_floats, [](double v) { return std::to_string(v); }) + ">";
    case K::Dense: {
      const std::string values =
          a.has_hex ? "0x" + hex_text(a.hex)
                    : joined(a.scalars, [](const shlo::DenseScalar& v) {
                        return v.is_complex ? "(" + v.text + ", " + v.imag + ")" : v.text;
                      });
      return "dense<" + std::string(a.splat ? "" : "[") + values + (a.splat ? "" : "]") + a.text + "> : " +
             a.type.text;
    }
    case K::Dictionary:
      return attrs_text(a.fields);
    case K::Enum:
      return "#" + a.dialect + "<" + a.enum_kind + " " + a.text + ">";
    case K::Struct:
      return "#" + a.dialect + attrs_text(a.fields);
    case K::Opaque:
      return a.text;
  }
  return "?";
}

// The op without its SSA names: name, attributes, types, and the ops of its
// regions the same way.
std::string op_key(const shlo::Op& op) {
  std::string key = op.name + attrs_text(op.attributes) + "(" + types_text(op.operand_types) + ") -> (" +
                    types_text(op.result_types) + ")";
  for (const shlo::Region& r : op.regions) {
    key += " {";
    for (const shlo::Block& b : r.blocks) {
      for (const shlo::BlockArgument& arg : b.arguments) key += " ^" + arg.type.text;
      for (const shlo::Op& inner : b.ops) key += " " + op_key(inner) + ";";
    }
    key += " }";
  }
  return key;
}

std::string shape_text(const shlo::Type& t) {
  if (t.kind != shlo::Type::Kind::Tensor) return t.text;
  std::string s = "[";
  for (size_t i = 0; i < t.dims.size(); ++i)
    s += (i ? "," : "") + (t.dims[i] == shlo::Type::kDynamic ? std::string("?") : std::to_string(t.dims[i]));
  return s + "]";
}

std::string shapes_text(const shlo::Op& op) {
  std::string in, out;
  for (const shlo::Type& t : op.operand_types) in += (in.empty() ? "" : " x ") + shape_text(t);
  for (const shlo::Type& t : op.result_types) out += (out.empty() ? "" : ", ") + shape_text(t);
  return in + " -> " + out;
}

// Values `op` uses that it does not define itself (its operands, and what
// its regions capture from above), each once, in order of use, with a type.
class FreeValues {
 public:
  explicit FreeValues(const shlo::Op& op) { visit(op); }
  const std::vector<std::pair<std::string, shlo::Type>>& values() const { return values_; }

 private:
  void visit(const shlo::Op& op) {
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const std::string& name = op.operands[i];
      if (defined_.count(name) || !seen_.insert(name).second) continue;
      values_.emplace_back(name, i < op.operand_types.size() ? op.operand_types[i] : shlo::Type{});
    }
    for (const shlo::Region& r : op.regions) {
      for (const shlo::Block& b : r.blocks) {
        for (const shlo::BlockArgument& arg : b.arguments) defined_.insert(arg.name);
        for (const shlo::Op& inner : b.ops) {
          visit(inner);
          defined_.insert(inner.results.begin(), inner.results.end());
        }
      }
    }
  }

  std::set<std::string> defined_, seen_;
  std::vector<std::pair<std::string, shlo::Type>> values_;
};

// `op` alone as the @main of a module like `m`: the values it uses are
// @main's arguments (keeping their names), except constants of `body`,
// which are copied in; @main returns the op's results. The module's other
// functions come along for the calls.
shlo::Module one_op_module(const shlo::Module& m, const shlo::Block& body, const shlo::Op& op) {
  std::map<std::string, const shlo::Op*> constants;
  for (const shlo::Op& o : body.ops) {
    if (!swept(o) && o.results.size() == 1) constants[o.results[0]] = &o;
  }
  shlo::Module out;
  out.name = m.name;
  out.attributes = m.attributes;
  out.other_ops = m.other_ops;
  out.aliases = m.aliases;
  out.loc = m.loc;
  shlo::Function main;
  main.name = "main";
  main.loc = op.loc;
  shlo::Block block;
  const FreeValues used(op);
  for (const auto& [name, type] : used.values()) {
    const auto constant = constants.find(name);
    if (constant != constants.end()) {
      block.ops.push_back(*constant->second);
    } else {
      main.arguments.push_back({name, type, {}});
      block.arguments.push_back({name, type});
    }
  }
  block.ops.push_back(op);
  shlo::Op ret;
  ret.name = "func.return";
  ret.operands = op.results;
  ret.operand_types = op.result_types;
  ret.loc = op.loc;
  block.ops.push_back(std::move(ret));
  for (const shlo::Type& t : op.result_types) main.results.push_back({t, {}});
  main.body.blocks.push_back(std::move(block));
  out.functions.push_back(std::move(main));
  for (const shlo::Function& f : m.functions) {
    if (f.name == "main") continue;
    out.functions.push_back(f);
    out.functions.back().visibility = "private";
  }
  return out;
}

SingleOp imported_op(const std::string& file, const shlo::Module& m, const shlo::Block& body, const shlo::Op& op) {
  SingleOp single;
  single.op = op.name;
  single.shapes = shapes_text(op);
  single.dtype = op.result_types.empty() ? "" : op.result_types[0].element;
  try {
    single.graph = shlo::import_stablehlo(one_op_module(m, body, op), file).graph;
  } catch (const std::exception& e) {
    single.unsupported = e.what();
  }
  return single;
}

}  // namespace

bool is_stablehlo_file(const std::filesystem::path& file) { return file.extension() == ".mlir"; }

int add_stablehlo_ops(const std::string& file, const OpsOptions& options, OpSet& ops) {
  int functions = 0;
  for (const shlo::Module& m : shlo::parse_mlir_file_split(file)) {
    for (const shlo::Function& f : m.functions) {
      ++functions;
      for (const shlo::Block& body : f.body.blocks) {
        for (const shlo::Op& op : body.ops) {
          if (!swept(op) || !op_selected(options, op.name)) continue;
          const std::string site =
              file + ":" + std::to_string(op.loc.line) + ":" + std::to_string(op.loc.column) + " @" + f.name;
          ops.add(op_key(op), site, [&] { return imported_op(file, m, body, op); });
        }
      }
    }
  }
  return functions;
}

}  // namespace meshtest::runner
