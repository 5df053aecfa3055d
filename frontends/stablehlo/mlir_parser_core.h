// The StableHLO reader's parser state, shared by its source files: the token
// stream, SSA scopes and attribute aliases, and the pieces every op form uses
// (types, attributes, value references). Internal to the reader; the public
// entry points are in mlir_parser.h.
//   mlir_types.cpp       types (tensor shapes, element types, functions)
//   mlir_attributes.cpp  attributes (dense, arrays, dictionaries, #dialect<...>)
//   mlir_parser.cpp      module, functions, regions, generic ops, the API
//   mlir_pretty_ops.cpp  the pretty (custom assembly) forms of ops
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontends/stablehlo/mlir_ast.h"
#include "frontends/stablehlo/mlir_lexer.h"

namespace meshtest::frontends::stablehlo {

class MlirParser {
 public:
  MlirParser(std::string_view text, std::string file_name, Cursor start = {});

  Module parse_module();

  // ---- tokens ----
  const Token& tok() const { return tok_; }
  void advance() { tok_ = lexer_.next(); }
  bool is(TokenKind kind) const { return tok_.kind == kind; }
  bool is_word(std::string_view word) const { return tok_.kind == TokenKind::BareId && tok_.text == word; }
  bool consume_if(TokenKind kind);
  bool consume_word_if(std::string_view word);
  // Consumes a token of `kind` or fails "expected <kind> <context>, found '...'".
  Token expect(TokenKind kind, std::string_view context);
  void expect_word(std::string_view word, std::string_view context);
  [[noreturn]] void fail(const std::string& message) const { fail_at(tok_.loc, message); }
  [[noreturn]] void fail_at(Location loc, const std::string& message) const {
    throw ParseError(lexer_.where(loc) + message);
  }
  // An error that rules out every other reading (see FatalParseError).
  [[noreturn]] void fail_fatal(Location loc, const std::string& message) const { lexer_.fail(loc, message); }
  std::string describe_current() const;
  // Goes back to `t` (a token seen earlier) as the current token.
  void restore(const Token& t);
  // Skips a balanced group starting at the current opener ( ( [ { < ) and
  // returns its text, openers and closers included.
  std::string_view skip_balanced();
  // The source text from `start` up to the current token, trailing blanks trimmed.
  std::string_view text_since(const Cursor& start) const;
  // Skips an optional `loc(...)` trailer.
  void skip_location();

  // Guards recursion depth on nested input (brackets, regions, types).
  class DepthGuard {
   public:
    explicit DepthGuard(MlirParser& p);
    ~DepthGuard() { --parser_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    MlirParser& parser_;
  };

  // ---- types (mlir_types.cpp) ----
  Type parse_type();
  // A comma-separated list of types (at least one).
  std::vector<Type> parse_type_list();
  // After `->`: one type or a parenthesised (possibly empty) list.
  std::vector<Type> parse_result_types();
  // A type if the current token can start one.
  bool at_type_start() const;
  // An element type as written (f32, complex<f32>, !quant.uniform<...>).
  std::string parse_element_type();

  // ---- attributes (mlir_attributes.cpp) ----
  AttrPtr parse_attribute();
  // `{a = 1, b}`; the current token must be '{'.
  NamedAttrs parse_attr_dict();
  // An optional `{...}` attribute dictionary, merged into `into`.
  void parse_optional_attr_dict(NamedAttrs& into);
  // A `[1, -2, 3]` list of integers (an empty list is allowed).
  std::vector<int64_t> parse_integer_list();
  int64_t parse_integer(std::string_view context);
  // `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` as the 9-field "stablehlo.conv" Struct.
  AttrPtr parse_conv_dimension_numbers();

  // ---- SSA values (mlir_parser.cpp) ----
  // Defines `name` (as written, e.g. "%0") with `count` results in the innermost scope.
  void define_value(const std::string& name, int count, Location loc);
  // The normalised name of a use (current token must be a PercentId), consumed.
  std::string parse_value_use();
  // `%a, %b, ...` (possibly empty, stops at the first non-value).
  std::vector<std::string> parse_value_uses();
  // A region `{ ... }`; `entry_args` are the entry block's arguments when the
  // pretty form declares them outside the braces.
  Region parse_region(const std::vector<BlockArgument>& entry_args = {});
  // `%name: type loc(...)?`; defined in the innermost scope when `define`.
  BlockArgument parse_block_argument(bool define = true);
  Op parse_op();

  // ---- pretty forms (mlir_pretty_ops.cpp) ----
  // Parses the rest of a pretty-form op whose name token was just consumed.
  void parse_pretty_op(Op& op);

  // `(operands) <{props}>? (regions)? {attrs}? : (types) -> types` after a quoted op name.
  void parse_generic_op_body(Op& op);

 private:
  friend class DepthGuard;
  void parse_file_scope_item(Module& module);
  void parse_module_body(Module& module, TokenKind terminator);
  Function parse_function();
  void parse_alias_definition(Module& module);
  Block parse_block_body();

  Lexer lexer_;
  Token tok_;
  int depth_ = 0;
  // SSA scopes: name -> number of results, innermost last.
  std::vector<std::unordered_map<std::string, int>> scopes_;
  std::unordered_map<std::string, AttrPtr> attribute_aliases_;
  std::unordered_map<std::string, Type> type_aliases_;
};

// Attribute constructors.
AttrPtr make_integer_attr(int64_t value, const std::string& type = "i64");
AttrPtr make_dense_i64_array(const std::vector<int64_t>& values);
AttrPtr make_i64_array_attr(const std::vector<int64_t>& values);  // Array of Integer
AttrPtr make_enum_attr(const std::string& dialect, const std::string& kind, const std::string& value);
AttrPtr make_string_attr(const std::string& value);
AttrPtr make_bool_attr(bool value);
Type make_scalar_type(const std::string& element);
// The textual form of a type (also stored in Type::text).
std::string type_to_string(const Type& type);
// Sorts named attributes by name (as MLIR prints dictionaries).
void sort_attrs(NamedAttrs& attrs);
// A dense literal whose elements are all equal becomes a splat (one scalar).
void store_equal_elements_as_splat(Attribute& attr);
// Fills and orders the fields of the known StableHLO structs (dot, gather,
// scatter, conv) so that every spelling yields the same fields.
void canonicalize_struct(Attribute& attr);

}  // namespace meshtest::frontends::stablehlo
