// The syntax tree of a StableHLO program as MLIR text: what the reader
// (mlir_parser.h) produces and the importer (stablehlo_import.h) consumes.
//
// Whatever form the text used, pretty (`stablehlo.add %a, %b : tensor<4xf32>`,
// the form JAX and torch-xla print) or generic (`"stablehlo.add"(%a, %b) :
// (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>`), an op arrives here in
// ONE shape: its full name, operands, attributes named as MLIR's generic
// form names them (properties `<{...}>` and the attribute dictionary merged),
// regions, and operand/result types. The pretty forms' custom syntax (e.g.
// `compare LT, ...`, `dot_general ..., contracting_dims = [1] x [0]`,
// `reduce(...) applies stablehlo.add across dimensions = [1]`,
// `convolution(...) dim_numbers = [b, 0, 1, f]x[...]->[...], window = {...}`)
// is turned into those generic attributes by the parser, so the importer
// never sees which form a file used.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace meshtest::frontends::stablehlo {

// 1-based line and column in the source text.
struct Location {
  int line = 0;
  int column = 0;
};

// ---- types ----
struct Type {
  enum class Kind {
    Tensor,    // tensor<2x?x3xf32>, tensor<f32> (rank 0)
    Tuple,     // tuple<tensor<f32>, tensor<i32>>
    Token,     // !stablehlo.token
    Function,  // (tensor<f32>) -> tensor<f32>
    Scalar,    // a bare element type where MLIR allows one (i64 in `5 : i64`, f32)
    Other,     // anything else, kept as text (e.g. an unknown `!dialect.type`)
  };
  Kind kind = Kind::Tensor;
  // Tensor/Scalar: the element type as written: "f32", "bf16", "f16", "f64",
  // "i1", "i8".."i64", "ui8".."ui64", "complex<f32>", "!quant.uniform<...>",
  // "f8E4M3FN", ... (the importer decides what it supports).
  std::string element;
  // Tensor: dimension sizes; kDynamic for `?`.
  std::vector<int64_t> dims;
  // Tensor: the encoding after the element type (`tensor<4xf32, #enc>`), as text; usually "".
  std::string encoding;
  // Tuple: element types. Function: inputs.
  std::vector<Type> elements;
  // Function: results.
  std::vector<Type> results;
  // Other (and every kind, for messages): the type as written, whitespace normalised.
  std::string text;

  static constexpr int64_t kDynamic = -1;
};

// ---- attributes ----
struct Attribute;
using AttrPtr = std::shared_ptr<const Attribute>;
// Named attributes in source order (MLIR keeps dictionaries sorted on print;
// order carries no meaning).
using NamedAttrs = std::vector<std::pair<std::string, AttrPtr>>;

// One scalar literal of a dense elements attribute, kept as written so the
// importer decodes it for the element type: "1", "-3", "1.500000e+00",
// "0x7FC00000" (a float given by its bits), "true"/"false", "inf", "nan";
// a complex element `(1.0, 2.0)` has both parts.
struct DenseScalar {
  std::string text;
  std::string imag;  // complex only
  bool is_complex = false;
};

struct Attribute {
  enum class Kind {
    Unit,        // present without value (`unique_indices` alone in a dict)
    Bool,        // true / false
    Integer,     // 5 : i64 (type: Scalar; i64 when omitted)
    Float,       // 1.0 : f32 (text kept for exact decoding)
    String,      // "..." (escapes decoded)
    Type,        // a type used as an attribute (`tensor<f32>`, `i32`)
    SymbolRef,   // @callee (text without '@'; nested refs joined with "::")
    Array,       // [a, b, ...]
    DenseArray,  // array<i64: 1, 2> (ints) or array<i1: true> (0/1) or array<f32: ...>
    Dense,       // dense<...> : tensor<...>  (also dense_resource<...>: unsupported, text kept)
    Dictionary,  // {a = 1, b}
    Enum,        // #stablehlo<comparison_direction LT>, #stablehlo<precision DEFAULT>,
                 // the bare enum words of pretty forms (LT, FLOAT): dialect + enum_kind + text
    Struct,      // #stablehlo.scatter<update_window_dims = [0], ...>, #stablehlo.gather<...>,
                 // #stablehlo.dot<...>, #stablehlo.conv<...>, #sdy.sharding<...>: dialect name + fields
    Opaque,      // anything else (#loc refs, unknown dialect attributes): text kept
  };
  Kind kind = Kind::Unit;

  bool bool_value = false;
  // Integer: the value (u64 values above INT64_MAX wrap into it; `text` keeps them exact).
  int64_t int_value = 0;
  // Float: the value as a double (`text` keeps the spelling, e.g. 0x7FC00000).
  double float_value = 0;
  // Integer/Float/DenseArray element type, Type attribute's type, Dense's tensor type.
  Type type;
  // String: the decoded string. SymbolRef: the symbol. Opaque: the text.
  // Enum: the value ("LT"). Integer/Float: the literal as written.
  std::string text;
  // Enum: its dialect ("stablehlo") and kind ("comparison_direction", "precision",
  // "comparison_type", "rng_algorithm", "transpose", ...; "" for a bare word).
  // Struct: its name ("stablehlo.scatter", "stablehlo.conv", "sdy.sharding").
  std::string dialect;
  std::string enum_kind;
  // Array: elements. Dictionary/Struct: fields (see NamedAttrs).
  std::vector<AttrPtr> elements;
  NamedAttrs fields;
  // DenseArray: values (ints; i1 as 0/1). Floats in dense_floats.
  std::vector<int64_t> ints;
  std::vector<double> dense_floats;
  // Dense: either `hex` bytes (dense<"0x...">, little endian, raw element
  // storage as MLIR writes it) or `scalars` (row-major; one element when
  // `splat`). Nested list structure is flattened; its shape is checked by
  // the parser against `type`.
  bool has_hex = false;
  std::vector<uint8_t> hex;
  std::vector<DenseScalar> scalars;
  bool splat = false;

  // Lookup of a Dictionary/Struct field, or null.
  const Attribute* field(const std::string& name) const {
    for (const auto& [k, v] : fields)
      if (k == name) return v.get();
    return nullptr;
  }
};

// ---- ops, regions, functions ----
struct Op;

struct BlockArgument {
  std::string name;  // "%arg0" (with the '%')
  Type type;
};

struct Block {
  std::string label;  // "^bb0", or "" for an entry block written without one
  std::vector<BlockArgument> arguments;
  std::vector<Op> ops;
};

struct Region {
  std::vector<Block> blocks;
};

struct Op {
  // Full name with its dialect: "stablehlo.add", "chlo.erf", "func.return",
  // "func.call", "stablehlo.return", "sdy.mesh", ... Pretty forms that MLIR
  // prints without a dialect (`return`, `call`) get "func." prepended.
  std::string name;
  // SSA names defined by this op, one per result, each as used elsewhere:
  // `%0:2 = ...` defines "%0#0" and "%0#1"; `%1 = ...` defines "%1".
  std::vector<std::string> results;
  // Operand value names as written, normalised the same way ("%0#1", "%arg0", "%cst").
  std::vector<std::string> operands;
  NamedAttrs attributes;  // properties and attribute dictionary, merged
  std::vector<Region> regions;
  std::vector<Type> operand_types;
  std::vector<Type> result_types;
  Location loc;

  const Attribute* attr(const std::string& attr_name) const {
    for (const auto& [k, v] : attributes)
      if (k == attr_name) return v.get();
    return nullptr;
  }
};

struct FunctionArgument {
  std::string name;  // "%arg0"
  Type type;
  NamedAttrs attributes;  // {mhlo.sharding = "...", jax.arg_info = "x", mhlo.layout_mode = "default"}
};

struct FunctionResult {
  Type type;
  NamedAttrs attributes;  // {jax.result_info = "", ...}
};

struct Function {
  std::string name;                   // without '@'
  std::string visibility = "public";  // "public" or "private"
  std::vector<FunctionArgument> arguments;
  std::vector<FunctionResult> results;
  NamedAttrs attributes;  // `attributes {...}` after the signature
  Region body;            // one block; empty for a declaration
  Location loc;
};

struct Module {
  std::string name;       // `module @jit_f` -> "jit_f"; "" when unnamed or implicit
  NamedAttrs attributes;  // {mhlo.num_partitions = 1 : i32, ...}
  std::vector<Function> functions;
  // Top-level ops other than functions (e.g. `sdy.mesh @mesh = <...>`), kept.
  std::vector<Op> other_ops;
  // `#alias = ...` definitions at file scope (locations, attribute aliases),
  // by name without '#': the parser resolves uses of attribute aliases itself.
  std::map<std::string, std::string> aliases;
  Location loc;
};

}  // namespace meshtest::frontends::stablehlo
