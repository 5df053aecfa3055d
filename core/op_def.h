// One definition per op: OpDef holds an op's text name, family, arity, typed
// attribute schema, result-type rule and one doc line. The definitions live
// in one file per op family under core/ops/ (listed in core/ops/families.h);
// op_def() looks one up by OpKind. infer_type() (core/ops.h) checks arity,
// then the attributes against the schema (validate_attrs), then runs the
// op's type rule.
//
// Attributes whose name holds a '.' ("test.note") are discardable, as in
// MLIR: carried, printed and hashed with the op, never checked against its
// schema. Every other attribute must be in the op's schema.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/attrs.h"
#include "core/ops.h"

namespace meshtest {

enum class AttrKind { Int, IntList, Float, String, Enum };

// One attribute of an op's schema. Optional attributes either have a default
// (read through OpAttrs) or none (their absence means something the type rule
// decides, e.g. slice's `end` is the extent of its axis).
struct AttrSpec {
  std::string_view name;
  AttrKind kind = AttrKind::Int;
  bool required = false;
  std::optional<AttrValue> default_value;
  std::vector<std::string_view> allowed;  // Enum: the allowed strings
};

AttrSpec required_int(std::string_view name);
AttrSpec optional_int(std::string_view name, int64_t fallback);
AttrSpec optional_int(std::string_view name);  // no default
AttrSpec required_ints(std::string_view name);
AttrSpec optional_ints(std::string_view name, std::vector<int64_t> fallback);
AttrSpec required_float(std::string_view name);
AttrSpec optional_float(std::string_view name, double fallback);
AttrSpec required_string(std::string_view name);
AttrSpec optional_string(std::string_view name, std::string fallback);
AttrSpec optional_enum(std::string_view name, std::initializer_list<std::string_view> allowed,
                       std::string_view fallback);
AttrSpec required_enum(std::string_view name, std::initializer_list<std::string_view> allowed);

// The ops are grouped by family; each family's definitions are in
// core/ops/<family>.cpp.
enum class OpFamily {
  UnaryElementwise,
  BinaryElementwise,
  Conversion,  // cast, constant
  Linalg,
  Conv,
  Pooling,
  Norm,
  Softmax,
  Routing,  // topk_mask
  Shape,
  Reduction,
  Embedding,
  Collective,
  Backward,
  Composite,
  StablehloElementwise,  // stablehlo_elementwise.cpp: abs .. iota (ops 53..95)
};

struct OpDef;

// An op's attributes as its type rule reads them: values given on the op, or
// the schema's default. Names must be in the schema (a type rule asking for
// another name is a bug: std::logic_error).
class OpAttrs {
 public:
  OpAttrs(const OpDef& def, const Attrs& attrs) : def_(def), attrs_(attrs) {}

  bool has(const std::string& name) const { return attrs_.has(name); }
  int64_t get_int(const std::string& name) const;
  double get_float(const std::string& name) const;
  std::string get_string(const std::string& name) const;
  std::vector<int64_t> get_ints(const std::string& name) const;

 private:
  const AttrValue& fallback(const std::string& name) const;
  const OpDef& def_;
  const Attrs& attrs_;
};

// Result type of an op from its operand types and (validated) attributes, or
// CompileError describing what is wrong (the caller adds which op).
using TypeRule = TensorType (*)(const std::vector<TensorType>& inputs, const OpAttrs& attrs);

struct OpDef {
  OpKind kind;
  std::string_view name;  // IR text name
  OpFamily family;
  int min_inputs;
  int max_inputs;  // -1: any number
  std::vector<AttrSpec> attrs;
  TypeRule infer;
  std::string_view doc;  // semantics, one line (the op spec)

  const AttrSpec* find_attr(std::string_view attr_name) const;
};

// The definition of `kind` (every OpKind has exactly one).
const OpDef& op_def(OpKind kind);
// Every definition, in OpKind order.
const std::vector<OpDef>& op_defs();

// Checks `attrs` against the schema of `def`: CompileError for a missing
// required attribute, an unknown one (not discardable) or a value of the
// wrong kind or outside an enum's allowed strings.
void validate_attrs(const OpDef& def, const Attrs& attrs);

}  // namespace meshtest
