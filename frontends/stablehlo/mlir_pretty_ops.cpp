// The pretty (custom assembly) forms of StableHLO, CHLO, func and Shardy ops,
// turned into their generic shape: operands, attributes named as the generic
// printer names them (see mlir_parser.h), regions and types. Most ops follow
// one pattern — comma-separated operands, `keyword = value` clauses and bare
// enum words, an optional attribute dictionary, then `:` and the types — and
// are described by a table entry; the rest have a small function each.
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "frontends/stablehlo/mlir_parser_core.h"

namespace meshtest::frontends::stablehlo {

namespace {

// How the types after ':' map to operands and results when they are not a
// function type.
enum class TypeStyle {
  Same,          // `: T` is every operand's and every result's type
  Select,        // `: pred_type, T`
  Pairwise,      // `: T1, T2` are the operand types and the result types
  Tuple,         // `: tuple<...>` is the result, its elements the operands
  Complex,       // `: tensor<..xcomplex<E>>` is the result, the operands are tensor<..xE>
  OperandsOnly,  // `: T1, T2` are the operand types, no results (return)
};

enum class ClauseKind {
  I64,  // dim = 0
  I32,
  UI64,            // max_ulp_difference = 3 (check dialect)
  F64,             // tolerance = 1.0e-03 (check dialect)
  I64Array,        // dims = [0, 1] -> DenseArray i64
  EnumWord,        // type = FFT -> Enum(<dialect>, enum_kind, FFT)
  PrecisionList,   // precision = [DEFAULT, HIGH]
  Bool,            // lower = true
  String,          // config = "ab,bc->ac"
  ExpMantissa,     // format = e5m10 -> exponent_bits, mantissa_bits
  DotBatching,     // batching_dims = [0] x [0]
  DotContracting,  // contracting_dims = [1] x [0]
  DotAlgorithm,    // algorithm = <lhs_precision_type = tf32, ...>
  ConvDims,        // dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f]
  Window,          // window = {stride = [..], pad = [[..]], ...}
};

struct Clause {
  std::string_view keyword;  // as the pretty form writes it ("" for a positional word)
  std::string_view attr;     // the generic attribute name
  ClauseKind kind;
  std::string_view enum_kind = "";
};

struct Context;
using Hook = void (*)(Context&);

struct PrettyForm {
  TypeStyle types = TypeStyle::Same;
  std::vector<Clause> clauses;     // `keyword = value` items
  std::vector<Clause> positional;  // bare words, in order (compare's LT, FLOAT)
  Hook lead = nullptr;             // the op's own syntax in place of the item list
  Hook whole = nullptr;            // the op's entire syntax (no shared tail)
};

struct Context {
  MlirParser& p;
  Op& op;
  const PrettyForm& form;
  bool known;             // false: an op without a table entry (clauses become attributes as written)
  NamedAttrs dot_fields;  // batching/contracting dims, assembled into dot_dimension_numbers
};

std::string dialect_of(const Op& op) { return op.name.substr(0, op.name.find('.')); }

void set_attr(Context& c, std::string_view name, AttrPtr value) {
  c.op.attributes.emplace_back(std::string(name), std::move(value));
}

// ---- clause values ----

AttrPtr parse_bool(MlirParser& p) {
  if (!p.is_word("true") && !p.is_word("false")) p.fail("expected true or false, found " + p.describe_current());
  AttrPtr a = make_bool_attr(p.is_word("true"));
  p.advance();
  return a;
}

std::string parse_word(MlirParser& p, std::string_view context) {
  const Token t = p.expect(TokenKind::BareId, context);
  return std::string(t.text);
}

AttrPtr parse_window_padding(MlirParser& p) {
  auto a = std::make_shared<Attribute>();
  a->kind = Attribute::Kind::Dense;
  p.expect(TokenKind::LSquare, "to start the window padding");
  int64_t rows = 0;
  if (!p.consume_if(TokenKind::RSquare)) {
    do {
      const Location loc = p.tok().loc;
      const std::vector<int64_t> pair = p.parse_integer_list();
      if (pair.size() != 2) p.fail_at(loc, "window padding needs [low, high] pairs");
      for (int64_t v : pair) a->scalars.push_back({std::to_string(v), "", false});
      ++rows;
    } while (p.consume_if(TokenKind::Comma));
    p.expect(TokenKind::RSquare, "to close the window padding");
  }
  a->type.kind = Type::Kind::Tensor;
  a->type.element = "i64";
  a->type.dims = {rows, 2};
  a->type.text = type_to_string(a->type);
  store_equal_elements_as_splat(*a);
  return a;
}

AttrPtr parse_bool_array(MlirParser& p) {
  auto a = std::make_shared<Attribute>();
  a->kind = Attribute::Kind::DenseArray;
  a->type = make_scalar_type("i1");
  p.expect(TokenKind::LSquare, "to start a list of booleans");
  if (!p.consume_if(TokenKind::RSquare)) {
    do {
      if (p.is_word("true") || p.is_word("false")) {
        a->ints.push_back(p.is_word("true") ? 1 : 0);
        p.advance();
      } else {
        const int64_t v = p.parse_integer("(0 or 1)");
        a->ints.push_back(v != 0 ? 1 : 0);
      }
    } while (p.consume_if(TokenKind::Comma));
    p.expect(TokenKind::RSquare, "to close a list of booleans");
  }
  return a;
}

void parse_window(Context& c) {
  MlirParser& p = c.p;
  p.expect(TokenKind::LBrace, "to start the convolution window");
  if (p.consume_if(TokenKind::RBrace)) return;
  do {
    const Token key = p.expect(TokenKind::BareId, "(a window attribute)");
    p.expect(TokenKind::Equal, "after a window attribute name");
    if (key.text == "stride") {
      set_attr(c, "window_strides", make_dense_i64_array(p.parse_integer_list()));
    } else if (key.text == "pad") {
      set_attr(c, "padding", parse_window_padding(p));
    } else if (key.text == "lhs_dilate") {
      set_attr(c, "lhs_dilation", make_dense_i64_array(p.parse_integer_list()));
    } else if (key.text == "rhs_dilate") {
      set_attr(c, "rhs_dilation", make_dense_i64_array(p.parse_integer_list()));
    } else if (key.text == "reverse") {
      set_attr(c, "window_reversal", parse_bool_array(p));
    } else {
      p.fail_at(key.loc, "unknown window attribute '" + std::string(key.text) +
                             "' (expected stride, pad, lhs_dilate, rhs_dilate or reverse)");
    }
  } while (p.consume_if(TokenKind::Comma));
  p.expect(TokenKind::RBrace, "to close the convolution window");
}

void parse_lhs_rhs_dims(Context& c, const char* lhs_name, const char* rhs_name) {
  c.dot_fields.emplace_back(lhs_name, make_i64_array_attr(c.p.parse_integer_list()));
  c.p.expect_word("x", "between lhs and rhs dimensions");
  c.dot_fields.emplace_back(rhs_name, make_i64_array_attr(c.p.parse_integer_list()));
}

void parse_clause_value(Context& c, const Clause& clause) {
  MlirParser& p = c.p;
  switch (clause.kind) {
    case ClauseKind::I64:
      set_attr(c, clause.attr, make_integer_attr(p.parse_integer(""), "i64"));
      return;
    case ClauseKind::I32:
      set_attr(c, clause.attr, make_integer_attr(p.parse_integer(""), "i32"));
      return;
    case ClauseKind::UI64:
      set_attr(c, clause.attr, make_integer_attr(p.parse_integer(""), "ui64"));
      return;
    case ClauseKind::F64: {
      if (!p.is(TokenKind::Float) && !p.is(TokenKind::Integer))
        p.fail("expected a number, found " + p.describe_current());
      auto a = std::make_shared<Attribute>();
      a->kind = Attribute::Kind::Float;
      a->text = std::string(p.tok().text);
      a->float_value = std::strtod(a->text.c_str(), nullptr);
      a->type = make_scalar_type("f64");
      p.advance();
      set_attr(c, clause.attr, a);
      return;
    }
    case ClauseKind::I64Array:
      set_attr(c, clause.attr, make_dense_i64_array(p.parse_integer_list()));
      return;
    case ClauseKind::EnumWord:
      set_attr(c, clause.attr,
               make_enum_attr(dialect_of(c.op), std::string(clause.enum_kind), parse_word(p, "(an enum value)")));
      return;
    case ClauseKind::PrecisionList: {
      auto a = std::make_shared<Attribute>();
      a->kind = Attribute::Kind::Array;
      p.expect(TokenKind::LSquare, "to start the precision list");
      if (!p.consume_if(TokenKind::RSquare)) {
        do {
          a->elements.push_back(make_enum_attr(dialect_of(c.op), "precision", parse_word(p, "(a precision)")));
        } while (p.consume_if(TokenKind::Comma));
        p.expect(TokenKind::RSquare, "to close the precision list");
      }
      set_attr(c, clause.attr, a);
      return;
    }
    case ClauseKind::Bool:
      set_attr(c, clause.attr, parse_bool(p));
      return;
    case ClauseKind::String: {
      const Token t = p.expect(TokenKind::String, "");
      set_attr(c, clause.attr, make_string_attr(decoded_string(t.text)));
      return;
    }
    case ClauseKind::ExpMantissa: {
      const Token t = p.expect(TokenKind::BareId, "(e#m#)");
      const std::string w(t.text);
      const size_t m = w.find('m');
      auto digits = [](const std::string& s) {
        return !s.empty() && s.size() < 9 && s.find_first_not_of("0123456789") == std::string::npos;
      };
      if (w.size() < 4 || w[0] != 'e' || m == std::string::npos || !digits(w.substr(1, m - 1)) ||
          !digits(w.substr(m + 1)))
        p.fail_at(t.loc, "expected exponent and mantissa bits as e#m#, found '" + w + "'");
      set_attr(c, "exponent_bits", make_integer_attr(std::stoll(w.substr(1, m - 1)), "i32"));
      set_attr(c, "mantissa_bits", make_integer_attr(std::stoll(w.substr(m + 1)), "i32"));
      return;
    }
    case ClauseKind::DotBatching:
      parse_lhs_rhs_dims(c, "lhs_batching_dimensions", "rhs_batching_dimensions");
      return;
    case ClauseKind::DotContracting:
      parse_lhs_rhs_dims(c, "lhs_contracting_dimensions", "rhs_contracting_dimensions");
      return;
    case ClauseKind::DotAlgorithm: {
      auto a = std::make_shared<Attribute>();
      a->kind = Attribute::Kind::Struct;
      a->dialect = dialect_of(c.op) + ".dot_algorithm";
      p.expect(TokenKind::Less, "to start the dot algorithm");
      do {
        const std::string key = parse_word(p, "(a dot algorithm field)");
        p.expect(TokenKind::Equal, "after a dot algorithm field");
        a->fields.emplace_back(key, p.parse_attribute());
      } while (p.consume_if(TokenKind::Comma));
      p.expect(TokenKind::Greater, "to close the dot algorithm");
      set_attr(c, clause.attr, a);
      return;
    }
    case ClauseKind::ConvDims:
      set_attr(c, clause.attr, p.parse_conv_dimension_numbers());
      return;
    case ClauseKind::Window:
      parse_window(c);
      return;
  }
}

// ---- the shared item list: operands, `keyword = value`, bare words ----

bool next_is_equal(MlirParser& p) {
  const Token here = p.tok();
  p.advance();
  const bool equal = p.is(TokenKind::Equal);
  p.restore(here);
  return equal;
}

void parse_items(Context& c) {
  MlirParser& p = c.p;
  size_t positional = 0;
  auto at_item = [&] {
    if (p.is(TokenKind::PercentId)) return true;
    if (!p.is(TokenKind::BareId)) return false;
    return positional < c.form.positional.size() || next_is_equal(p);
  };
  if (!at_item()) return;
  do {
    if (p.is(TokenKind::PercentId)) {
      c.op.operands.push_back(p.parse_value_use());
      continue;
    }
    const Token word = p.expect(TokenKind::BareId, "(an operand or a keyword)");
    if (p.consume_if(TokenKind::Equal)) {
      const Clause* clause = nullptr;
      for (const Clause& cl : c.form.clauses)
        if (cl.keyword == word.text) clause = &cl;
      if (clause) {
        parse_clause_value(c, *clause);
      } else if (!c.known) {
        set_attr(c, word.text, p.parse_attribute());
      } else {
        p.fail_at(word.loc, "unexpected keyword '" + std::string(word.text) + "' in '" + c.op.name + "'");
      }
    } else {
      if (positional >= c.form.positional.size())
        p.fail_at(word.loc, "unexpected '" + std::string(word.text) + "' in '" + c.op.name + "'");
      const Clause& clause = c.form.positional[positional++];
      set_attr(c, clause.attr, make_enum_attr(dialect_of(c.op), std::string(clause.enum_kind), std::string(word.text)));
    }
  } while (p.consume_if(TokenKind::Comma));
}

// ---- types after ':' ----

std::string count_text(size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

void parse_signature(Context& c) {
  MlirParser& p = c.p;
  Op& op = c.op;
  const size_t results = op.results.size();
  if (!p.consume_if(TokenKind::Colon)) {
    if (!op.operands.empty() || results)
      p.fail("expected ':' and the types of '" + op.name + "', found " + p.describe_current());
    return;
  }
  const Location loc = p.tok().loc;
  std::vector<Type> types = p.parse_type_list();
  if (p.consume_if(TokenKind::Arrow)) {  // CHLO's `T, T -> T`
    op.operand_types = std::move(types);
    op.result_types = p.parse_result_types();
  } else if (types.size() == 1 && types[0].kind == Type::Kind::Function) {
    op.operand_types = std::move(types[0].elements);
    op.result_types = std::move(types[0].results);
  } else {
    switch (c.form.types) {
      case TypeStyle::Same:
        if (types.size() != 1) p.fail_at(loc, "expected one type or a function type for '" + op.name + "'");
        op.operand_types.assign(op.operands.size(), types[0]);
        op.result_types.assign(results, types[0]);
        break;
      case TypeStyle::Select:
        if (types.size() != 2) p.fail_at(loc, "expected 'pred_type, type' or a function type for '" + op.name + "'");
        op.operand_types = {types[0], types[1], types[1]};
        op.result_types = {types[1]};
        break;
      case TypeStyle::Pairwise:
        op.operand_types = types;
        op.result_types = std::move(types);
        break;
      case TypeStyle::Tuple:
        if (types.size() != 1 || types[0].kind != Type::Kind::Tuple)
          p.fail_at(loc, "expected a tuple type for '" + op.name + "'");
        op.operand_types = types[0].elements;
        op.result_types = {types[0]};
        break;
      case TypeStyle::Complex: {
        const std::string& e = types.size() == 1 ? types[0].element : std::string();
        if (types.size() != 1 || types[0].kind != Type::Kind::Tensor || e.rfind("complex<", 0) != 0)
          p.fail_at(loc, "expected a tensor of complex type for '" + op.name + "'");
        Type real = types[0];
        real.element = e.substr(8, e.size() - 9);
        real.text = type_to_string(real);
        op.operand_types = {real, real};
        op.result_types = {types[0]};
        break;
      }
      case TypeStyle::OperandsOnly:
        op.operand_types = std::move(types);
        break;
    }
  }
  if (op.operand_types.size() != op.operands.size())
    p.fail_at(loc, "'" + op.name + "' has " + count_text(op.operands.size(), "operand") + " but its type gives " +
                       count_text(op.operand_types.size(), "operand type"));
}

// ---- op-specific syntax ----

std::string symbol_name(const Token& t) {
  return t.text.size() > 1 && t.text[1] == '"' ? decoded_string(t.text.substr(1)) : std::string(t.text.substr(1));
}

void parenthesised_operands(Context& c) {
  c.p.expect(TokenKind::LParen, "to start the operands of '" + c.op.name + "'");
  c.op.operands = c.p.parse_value_uses();
  c.p.expect(TokenKind::RParen, "to close the operands of '" + c.op.name + "'");
}

void lead_custom_call(Context& c) {  // @target(%a, %b)
  const Token target = c.p.expect(TokenKind::AtId, "(the custom call target)");
  set_attr(c, "call_target_name", make_string_attr(symbol_name(target)));
  parenthesised_operands(c);
}

void lead_call(Context& c) {  // @callee(%a, %b)
  const Token callee = c.p.expect(TokenKind::AtId, "(the callee)");
  auto a = std::make_shared<Attribute>();
  a->kind = Attribute::Kind::SymbolRef;
  a->text = symbol_name(callee);
  set_attr(c, "callee", a);
  parenthesised_operands(c);
}

void lead_convolution(Context& c) {  // (%lhs, %rhs) dim_numbers = ..., window = {...}
  parenthesised_operands(c);
  parse_items(c);
}

void lead_get_tuple_element(Context& c) {  // %t[0]
  c.op.operands.push_back(c.p.parse_value_use());
  c.p.expect(TokenKind::LSquare, "before the tuple index");
  set_attr(c, "index", make_integer_attr(c.p.parse_integer("(the tuple index)"), "i32"));
  c.p.expect(TokenKind::RSquare, "after the tuple index");
}

void lead_slice(Context& c) {  // %x [0:2, 1:3:2]
  MlirParser& p = c.p;
  c.op.operands.push_back(p.parse_value_use());
  std::vector<int64_t> start, limit, strides;
  p.expect(TokenKind::LSquare, "to start the slice ranges");
  if (!p.consume_if(TokenKind::RSquare)) {
    do {
      start.push_back(p.parse_integer("(slice start)"));
      p.expect(TokenKind::Colon, "between slice start and limit");
      limit.push_back(p.parse_integer("(slice limit)"));
      strides.push_back(p.consume_if(TokenKind::Colon) ? p.parse_integer("(slice stride)") : 1);
    } while (p.consume_if(TokenKind::Comma));
    p.expect(TokenKind::RSquare, "to close the slice ranges");
  }
  set_attr(c, "start_indices", make_dense_i64_array(start));
  set_attr(c, "limit_indices", make_dense_i64_array(limit));
  set_attr(c, "strides", make_dense_i64_array(strides));
}

void lead_top_k(Context& c) {  // (%x, k = 4, is_stable = true)
  MlirParser& p = c.p;
  p.expect(TokenKind::LParen, "to start chlo.top_k's operand");
  c.op.operands.push_back(p.parse_value_use());
  p.expect(TokenKind::Comma, "after chlo.top_k's operand");
  p.expect_word("k", "in chlo.top_k");
  p.expect(TokenKind::Equal, "after 'k'");
  set_attr(c, "k", make_integer_attr(p.parse_integer("(k)")));
  if (p.consume_if(TokenKind::Comma)) {
    p.expect_word("is_stable", "in chlo.top_k");
    p.expect(TokenKind::Equal, "after 'is_stable'");
    set_attr(c, "is_stable", parse_bool(p));
  }
  p.expect(TokenKind::RParen, "to close chlo.top_k's operand");
}

void lead_composite(Context& c) {  // "name" %a, %b ({...}, {...})?
  MlirParser& p = c.p;
  const Token name = p.expect(TokenKind::String, "(the composite's name)");
  set_attr(c, "name", make_string_attr(decoded_string(name.text)));
  c.op.operands = p.parse_value_uses();
  if (p.consume_if(TokenKind::LParen)) {
    do {
      c.op.regions.push_back(p.parse_region());
    } while (p.consume_if(TokenKind::Comma));
    p.expect(TokenKind::RParen, "to close the composite's regions");
  }
}

void lead_optimization_barrier(Context& c) {  // %a, %b   or   ()
  if (c.p.consume_if(TokenKind::LParen)) {
    c.p.expect(TokenKind::RParen, "(an optimization_barrier without operands is written '()')");
    return;
  }
  parse_items(c);
}

AttrPtr opaque(const std::string& dialect, const std::string& text) {
  auto a = std::make_shared<Attribute>();
  a->kind = Attribute::Kind::Opaque;
  a->dialect = dialect;
  a->text = text;
  return a;
}

void lead_sdy_sharded_value(Context& c) {  // %x <@mesh, [{"x"}, {}]>
  c.op.operands.push_back(c.p.parse_value_use());
  if (!c.p.is(TokenKind::Less)) c.p.fail("expected '<' to start the sharding, found " + c.p.describe_current());
  set_attr(c, "sharding", opaque("sdy.sharding", "#sdy.sharding" + std::string(c.p.skip_balanced())));
}

void whole_sdy_mesh(Context& c) {  // @mesh = <["x"=2]>
  MlirParser& p = c.p;
  const Token name = p.expect(TokenKind::AtId, "(the mesh name)");
  set_attr(c, "sym_name", make_string_attr(symbol_name(name)));
  p.expect(TokenKind::Equal, "after the mesh name");
  if (!p.is(TokenKind::Less)) p.fail("expected '<' to start the mesh, found " + p.describe_current());
  set_attr(c, "mesh", opaque("sdy.mesh", "#sdy.mesh" + std::string(p.skip_balanced())));
  p.parse_optional_attr_dict(c.op.attributes);
}

void whole_sdy_manual_computation(Context& c) {
  MlirParser& p = c.p;
  parenthesised_operands(c);
  while (p.is(TokenKind::BareId) && !p.is_word("loc")) {
    const Token key = p.tok();
    p.advance();
    p.expect(TokenKind::Equal, "after '" + std::string(key.text) + "'");
    if (!p.is(TokenKind::LSquare) && !p.is(TokenKind::LBrace))
      p.fail("expected '[' or '{' after '" + std::string(key.text) + "=', found " + p.describe_current());
    const std::string body(p.skip_balanced());
    if (key.text == "manual_axes") {
      set_attr(c, key.text, opaque("sdy", "#sdy<manual_axes" + body + ">"));
    } else {
      set_attr(c, key.text, opaque("sdy.sharding_per_value", "#sdy.sharding_per_value<" + body + ">"));
    }
  }
  std::vector<BlockArgument> args;
  p.expect(TokenKind::LParen, "to start the manual computation's block arguments");
  if (!p.consume_if(TokenKind::RParen)) {
    do {
      args.push_back(p.parse_block_argument(false));
    } while (p.consume_if(TokenKind::Comma));
    p.expect(TokenKind::RParen, "to close the manual computation's block arguments");
  }
  c.op.regions.push_back(p.parse_region(args));
  parse_signature(c);
}

void whole_constant(Context& c) {  // {attrs}? dense<...> : tensor<...>   (arith: also `1 : i32`)
  MlirParser& p = c.p;
  if (p.is(TokenKind::LParen)) {  // the generic form after an unquoted name
    p.parse_generic_op_body(c.op);
    return;
  }
  p.parse_optional_attr_dict(c.op.attributes);
  const Location loc = p.tok().loc;
  AttrPtr value = p.parse_attribute();
  const bool scalar = value->kind == Attribute::Kind::Integer || value->kind == Attribute::Kind::Float;
  if (value->kind != Attribute::Kind::Dense && !(scalar && dialect_of(c.op) == "arith"))
    p.fail_at(loc, "expected a dense<...> : tensor<...> value for '" + c.op.name + "'");
  set_attr(c, "value", value);
  c.op.result_types = {value->type};
}

void whole_check_const(Context& c) {  // %x, dense<...> : T (, tolerance = 1e-3)?   (check.expect_*_const)
  MlirParser& p = c.p;
  c.op.operands.push_back(p.parse_value_use());
  p.expect(TokenKind::Comma, "after the checked value");
  const Location loc = p.tok().loc;
  AttrPtr value = p.parse_attribute();
  if (value->kind != Attribute::Kind::Dense) p.fail_at(loc, "expected a dense<...> : tensor<...> expected value");
  set_attr(c, "value", value);
  c.op.operand_types = {value->type};
  if (p.consume_if(TokenKind::Comma)) parse_items(c);
  p.parse_optional_attr_dict(c.op.attributes);
}

void whole_reduce(Context& c) {
  MlirParser& p = c.p;
  Op& op = c.op;
  const Location loc = p.tok().loc;
  std::vector<std::string> inits;
  do {
    p.expect(TokenKind::LParen, "to start a reduce operand");
    op.operands.push_back(p.parse_value_use());
    p.expect_word("init", "after a reduce operand");
    p.expect(TokenKind::Colon, "after 'init'");
    inits.push_back(p.parse_value_use());
    p.expect(TokenKind::RParen, "to close a reduce operand");
  } while (p.consume_if(TokenKind::Comma));
  op.operands.insert(op.operands.end(), inits.begin(), inits.end());
  std::string applies;
  if (p.consume_word_if("applies")) {
    if (p.is(TokenKind::String)) {
      applies = decoded_string(p.tok().text);
    } else if (p.is(TokenKind::BareId)) {
      applies = std::string(p.tok().text);
    } else {
      p.fail("expected the op that reduce applies, found " + p.describe_current());
    }
    p.advance();
  }
  p.expect_word("across", "in reduce");
  p.expect_word("dimensions", "in reduce");
  p.expect(TokenKind::Equal, "after 'dimensions'");
  set_attr(c, "dimensions", make_dense_i64_array(p.parse_integer_list()));
  p.parse_optional_attr_dict(op.attributes);
  p.expect(TokenKind::Colon, "before the type of reduce");
  const Location type_loc = p.tok().loc;
  Type type = p.parse_type();
  if (type.kind != Type::Kind::Function) p.fail_at(type_loc, "expected a function type for reduce");
  op.operand_types = std::move(type.elements);
  op.result_types = std::move(type.results);
  if (op.operand_types.size() != op.operands.size())
    p.fail_at(type_loc, "reduce has " + count_text(op.operands.size(), "operand") + " but its type gives " +
                            count_text(op.operand_types.size(), "operand type"));
  if (applies.empty()) {
    p.expect_word("reducer", "before the reduce body");
    std::vector<BlockArgument> firsts, seconds;
    while (p.consume_if(TokenKind::LParen)) {
      firsts.push_back(p.parse_block_argument(false));
      p.expect(TokenKind::Comma, "between reducer arguments");
      seconds.push_back(p.parse_block_argument(false));
      p.expect(TokenKind::RParen, "to close a reducer argument pair");
    }
    firsts.insert(firsts.end(), seconds.begin(), seconds.end());
    op.regions.push_back(p.parse_region(firsts));
    return;
  }
  // `applies X`: the block MLIR builds, (lhs, rhs : tensor<E>) -> X(lhs, rhs).
  Type scalar;
  scalar.kind = Type::Kind::Tensor;
  scalar.element = op.operand_types[0].element;
  if (op.operand_types[0].kind != Type::Kind::Tensor) p.fail_at(loc, "reduce needs tensor operands");
  scalar.text = type_to_string(scalar);
  Block block;
  block.arguments = {{"%applies:lhs", scalar}, {"%applies:rhs", scalar}};
  Op inner;
  inner.name = applies;
  inner.operands = {"%applies:lhs", "%applies:rhs"};
  inner.operand_types = {scalar, scalar};
  inner.results = {"%applies:result"};
  inner.result_types = {scalar};
  inner.loc = op.loc;
  Op ret;
  ret.name = applies.substr(0, applies.find('.')) + ".return";
  ret.operands = {"%applies:result"};
  ret.operand_types = {scalar};
  ret.loc = op.loc;
  block.ops.push_back(std::move(inner));
  block.ops.push_back(std::move(ret));
  Region region;
  region.blocks.push_back(std::move(block));
  op.regions.push_back(std::move(region));
}

void whole_while(Context& c) {  // (%iter = %init, ...) : T, ... attributes {...}? cond {...} do {...}
  MlirParser& p = c.p;
  Op& op = c.op;
  std::vector<Token> names;
  p.expect(TokenKind::LParen, "to start the while operands");
  if (!p.consume_if(TokenKind::RParen)) {
    do {
      names.push_back(p.expect(TokenKind::PercentId, "(an iteration argument)"));
      p.expect(TokenKind::Equal, "after an iteration argument");
      op.operands.push_back(p.parse_value_use());
    } while (p.consume_if(TokenKind::Comma));
    p.expect(TokenKind::RParen, "to close the while operands");
  }
  std::vector<Type> types;
  if (!names.empty()) {
    p.expect(TokenKind::Colon, "before the while operand types");
    const Location loc = p.tok().loc;
    types = p.parse_type_list();
    if (types.size() != names.size())
      p.fail_at(loc, "while has " + count_text(names.size(), "operand") + " but " + count_text(types.size(), "type"));
  }
  op.operand_types = types;
  op.result_types = types;
  if (p.consume_word_if("attributes")) {
    for (auto& entry : p.parse_attr_dict()) op.attributes.push_back(std::move(entry));
  }
  std::vector<BlockArgument> args;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].text.find('#') != std::string_view::npos)
      p.fail_at(names[i].loc, "an iteration argument cannot have a result number");
    args.push_back({std::string(names[i].text), types[i]});
  }
  p.expect_word("cond", "before the while condition");
  op.regions.push_back(p.parse_region(args));
  p.expect_word("do", "before the while body");
  op.regions.push_back(p.parse_region(args));
}

// ---- the table ----

const std::unordered_map<std::string, PrettyForm>& pretty_forms() {
  using K = ClauseKind;
  static const std::unordered_map<std::string, PrettyForm> forms = [] {
    std::unordered_map<std::string, PrettyForm> f;
    auto clauses = [&](std::initializer_list<const char*> names, std::vector<Clause> cl) {
      for (const char* n : names) f[n].clauses = cl;
    };
    clauses({"stablehlo.iota", "stablehlo.dynamic_iota"}, {{"dim", "iota_dimension", K::I64}});
    clauses({"stablehlo.get_dimension_size", "stablehlo.set_dimension_size", "stablehlo.concatenate"},
            {{"dim", "dimension", K::I64}});
    clauses({"stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim"},
            {{"dims", "broadcast_dimensions", K::I64Array}});
    clauses({"stablehlo.broadcast"}, {{"sizes", "broadcast_sizes", K::I64Array}});
    clauses({"stablehlo.transpose"}, {{"dims", "permutation", K::I64Array}});
    clauses({"stablehlo.reverse"}, {{"dims", "dimensions", K::I64Array}});
    clauses({"stablehlo.dynamic_slice"}, {{"sizes", "slice_sizes", K::I64Array}});
    clauses({"stablehlo.pad"}, {{"low", "edge_padding_low", K::I64Array},
                                {"high", "edge_padding_high", K::I64Array},
                                {"interior", "interior_padding", K::I64Array}});
    clauses({"stablehlo.fft"}, {{"type", "fft_type", K::EnumWord, "fft_type"}, {"length", "fft_length", K::I64Array}});
    clauses({"stablehlo.rng"}, {{"distribution", "rng_distribution", K::EnumWord, "rng_distribution"}});
    clauses({"stablehlo.rng_bit_generator"}, {{"algorithm", "rng_algorithm", K::EnumWord, "rng_algorithm"}});
    clauses({"stablehlo.reduce_precision"}, {{"format", "", K::ExpMantissa}});
    clauses({"stablehlo.cholesky"}, {{"lower", "lower", K::Bool}});
    clauses({"stablehlo.dot"}, {{"precision", "precision_config", K::PrecisionList}});
    clauses({"stablehlo.dot_general"}, {{"batching_dims", "", K::DotBatching},
                                        {"contracting_dims", "", K::DotContracting},
                                        {"precision", "precision_config", K::PrecisionList},
                                        {"algorithm", "algorithm", K::DotAlgorithm}});
    clauses({"stablehlo.einsum", "stablehlo.unary_einsum"}, {{"config", "einsum_config", K::String}});
    clauses({"stablehlo.convolution"}, {{"dim_numbers", "dimension_numbers", K::ConvDims}, {"window", "", K::Window}});
    f["stablehlo.convolution"].lead = lead_convolution;
    f["stablehlo.compare"].positional = {{"", "comparison_direction", K::EnumWord, "comparison_direction"},
                                         {"", "compare_type", K::EnumWord, "comparison_type"}};
    f["stablehlo.select"].types = TypeStyle::Select;
    f["stablehlo.optimization_barrier"].types = TypeStyle::Pairwise;
    f["stablehlo.optimization_barrier"].lead = lead_optimization_barrier;
    f["stablehlo.tuple"].types = TypeStyle::Tuple;
    f["stablehlo.complex"].types = TypeStyle::Complex;
    for (const char* n : {"stablehlo.return", "func.return", "sdy.return", "chlo.return", "mhlo.return"})
      f[n].types = TypeStyle::OperandsOnly;
    f["stablehlo.custom_call"].lead = lead_custom_call;
    f["func.call"].lead = lead_call;
    f["stablehlo.get_tuple_element"].lead = lead_get_tuple_element;
    f["stablehlo.slice"].lead = lead_slice;
    f["chlo.top_k"].lead = lead_top_k;
    f["stablehlo.composite"].lead = lead_composite;
    f["sdy.sharding_constraint"].lead = lead_sdy_sharded_value;
    f["sdy.reshard"].lead = lead_sdy_sharded_value;
    f["sdy.mesh"].whole = whole_sdy_mesh;
    f["sdy.manual_computation"].whole = whole_sdy_manual_computation;
    f["stablehlo.constant"].whole = whole_constant;
    f["chlo.constant"].whole = whole_constant;
    f["stablehlo.reduce"].whole = whole_reduce;
    f["stablehlo.while"].whole = whole_while;
    f["arith.constant"].whole = whole_constant;
    // The check dialect of StableHLO's interpreter tests.
    for (const char* n : {"check.expect_eq_const", "check.expect_almost_eq_const"}) {
      f[n].whole = whole_check_const;
      f[n].clauses = {{"tolerance", "tolerance", K::F64}};
    }
    f["check.expect_almost_eq"].clauses = {{"tolerance", "tolerance", K::F64}};
    f["check.expect_close"].clauses = {{"max_ulp_difference", "max_ulp_difference", K::UI64},
                                       {"min_ulp_difference", "min_ulp_difference", K::UI64}};
    f["check.expect_close"].types = TypeStyle::OperandsOnly;
    return f;
  }();
  return forms;
}

}  // namespace

void MlirParser::parse_pretty_op(Op& op) {
  static const PrettyForm kDefault;
  const auto& forms = pretty_forms();
  const auto found = forms.find(op.name);
  const bool known = found != forms.end();
  Context c{*this, op, known ? found->second : kDefault, known, {}};
  if (c.form.whole) {
    c.form.whole(c);
    return;
  }
  if (c.form.lead) {
    c.form.lead(c);
  } else {
    parse_items(c);
  }
  if (!c.dot_fields.empty()) {
    auto dims = std::make_shared<Attribute>();
    dims->kind = Attribute::Kind::Struct;
    dims->dialect = dialect_of(op) + ".dot";
    dims->fields = std::move(c.dot_fields);
    canonicalize_struct(*dims);
    set_attr(c, "dot_dimension_numbers", dims);
  }
  parse_optional_attr_dict(op.attributes);
  parse_signature(c);
}

}  // namespace meshtest::frontends::stablehlo
