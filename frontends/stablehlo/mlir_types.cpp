// Types: tensor<2x?xf32[, encoding]>, element types (f32, bf16, iN, uiN,
// complex<...>, f8 variants, !quant.uniform<...> kept as text), tuple<...>,
// !stablehlo.token, function types `(T, T) -> T`, and `!alias` uses.
#include <charconv>
#include <string>

#include "frontends/stablehlo/mlir_parser_core.h"

namespace meshtest::frontends::stablehlo {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_digit(c)) return false;
  return true;
}

// Builtin element types MLIR spells as bare words: iN, siN, uiN, fN..., bf16, tf32, index, none.
bool is_builtin_element_word(std::string_view w) {
  if (w == "bf16" || w == "tf32" || w == "index" || w == "none") return true;
  if (w.size() > 1 && w[0] == 'i') return all_digits(w.substr(1));
  if (w.size() > 2 && (w.substr(0, 2) == "si" || w.substr(0, 2) == "ui")) return all_digits(w.substr(2));
  // f16, f32, f64, f80, f128 and the small floats f8E4M3FN, f4E2M1FN, f6E3M2FN, f8E8M0FNU...
  return w.size() > 1 && w[0] == 'f' && is_digit(w[1]);
}

void append_dims(std::string& out, const std::vector<int64_t>& dims) {
  for (int64_t d : dims) {
    out += d == Type::kDynamic ? std::string("?") : std::to_string(d);
    out += 'x';
  }
}

void append_list(std::string& out, const std::vector<Type>& types) {
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) out += ", ";
    out += type_to_string(types[i]);
  }
}

}  // namespace

Type make_scalar_type(const std::string& element) {
  Type t;
  t.kind = Type::Kind::Scalar;
  t.element = element;
  t.text = element;
  return t;
}

std::string type_to_string(const Type& type) {
  std::string out;
  switch (type.kind) {
    case Type::Kind::Tensor:
      out = "tensor<";
      append_dims(out, type.dims);
      out += type.element;
      if (!type.encoding.empty()) out += ", " + type.encoding;
      out += '>';
      return out;
    case Type::Kind::Tuple:
      out = "tuple<";
      append_list(out, type.elements);
      out += '>';
      return out;
    case Type::Kind::Token:
      return "!stablehlo.token";
    case Type::Kind::Function:
      out = "(";
      append_list(out, type.elements);
      out += ") -> ";
      if (type.results.size() == 1 && type.results[0].kind != Type::Kind::Function) {
        out += type_to_string(type.results[0]);
      } else {
        out += '(';
        append_list(out, type.results);
        out += ')';
      }
      return out;
    case Type::Kind::Scalar:
      return type.element;
    case Type::Kind::Other:
      return type.text;
  }
  return type.text;
}

bool MlirParser::at_type_start() const {
  switch (tok_.kind) {
    case TokenKind::LParen:
    case TokenKind::BangId:
      return true;
    case TokenKind::BareId:
      return tok_.text == "tensor" || tok_.text == "tuple" || tok_.text == "complex" || tok_.text == "vector" ||
             tok_.text == "memref" || is_builtin_element_word(tok_.text);
    default:
      return false;
  }
}

std::string MlirParser::parse_element_type() {
  DepthGuard guard(*this);
  if (tok_.kind == TokenKind::BangId) {
    const Cursor start = tok_.start;
    advance();
    if (is(TokenKind::Less)) skip_balanced();
    return std::string(text_since(start));
  }
  if (is_word("complex")) {
    advance();
    expect(TokenKind::Less, "after 'complex'");
    std::string inner = parse_element_type();
    expect(TokenKind::Greater, "to close complex<...>");
    return "complex<" + inner + ">";
  }
  if (tok_.kind == TokenKind::BareId && is_builtin_element_word(tok_.text)) {
    std::string word(tok_.text);
    advance();
    return word;
  }
  fail("expected an element type (f32, i32, complex<f32>, ...), found " + describe_current());
}

std::vector<Type> MlirParser::parse_type_list() {
  std::vector<Type> types;
  types.push_back(parse_type());
  while (consume_if(TokenKind::Comma)) types.push_back(parse_type());
  return types;
}

std::vector<Type> MlirParser::parse_result_types() {
  if (!is(TokenKind::LParen)) return {parse_type()};
  DepthGuard guard(*this);
  advance();
  std::vector<Type> types;
  if (!consume_if(TokenKind::RParen)) {
    types = parse_type_list();
    expect(TokenKind::RParen, "to close the result type list");
  }
  return types;
}

Type MlirParser::parse_type() {
  DepthGuard guard(*this);
  Type type;
  const Location loc = tok_.loc;
  if (is(TokenKind::LParen)) {  // function type
    advance();
    type.kind = Type::Kind::Function;
    if (!consume_if(TokenKind::RParen)) {
      type.elements = parse_type_list();
      expect(TokenKind::RParen, "to close the function input types");
    }
    expect(TokenKind::Arrow, "in a function type");
    type.results = parse_result_types();
  } else if (is_word("tensor")) {
    advance();
    if (!is(TokenKind::Less)) fail("expected '<' after 'tensor', found " + describe_current());
    // The shape `4x?x` is scanned character by character: MLIR lexes `4x3xf32` specially.
    Cursor after_less = tok_.start;
    ++after_less.offset;
    ++after_less.column;
    lexer_.reset(after_less);
    bool unranked = false;
    while (true) {
      const Location dim_loc{lexer_.cursor().line, lexer_.cursor().column};
      const char c = lexer_.peek_char();
      if (is_digit(c)) {
        int64_t value = 0;
        const std::string_view text = lexer_.text();
        const size_t begin = lexer_.cursor().offset;
        size_t end = begin;
        while (end < text.size() && is_digit(text[end])) ++end;
        const auto [ptr, ec] = std::from_chars(text.data() + begin, text.data() + end, value);
        if (ec != std::errc()) fail_at(dim_loc, "tensor dimension out of range");
        while (lexer_.cursor().offset < end) lexer_.advance_char();
        type.dims.push_back(value);
      } else if (c == '?') {
        lexer_.advance_char();
        type.dims.push_back(Type::kDynamic);
      } else if (c == '*' && type.dims.empty() && !unranked) {
        lexer_.advance_char();
        unranked = true;
      } else {
        break;
      }
      if (lexer_.peek_char() != 'x')
        fail_at({lexer_.cursor().line, lexer_.cursor().column}, "expected 'x' after a tensor dimension");
      lexer_.advance_char();
    }
    advance();
    type.element = parse_element_type();
    if (consume_if(TokenKind::Comma)) {
      const Cursor start = tok_.start;
      parse_attribute();
      type.encoding = std::string(text_since(start));
    }
    expect(TokenKind::Greater, "to close tensor<...>");
    if (unranked) {
      type.kind = Type::Kind::Other;
      type.text = "tensor<*x" + type.element + ">";
      return type;
    }
  } else if (is_word("tuple")) {
    advance();
    type.kind = Type::Kind::Tuple;
    expect(TokenKind::Less, "after 'tuple'");
    if (!consume_if(TokenKind::Greater)) {
      type.elements = parse_type_list();
      expect(TokenKind::Greater, "to close tuple<...>");
    }
  } else if (is(TokenKind::BangId)) {
    if (tok_.text == "!stablehlo.token") {
      advance();
      type.kind = Type::Kind::Token;
    } else {
      const std::string name(tok_.text.substr(1));
      const auto alias = type_aliases_.find(name);
      if (alias != type_aliases_.end() && name.find('.') == std::string::npos) {
        advance();
        return alias->second;
      }
      type.kind = Type::Kind::Other;
      type.text = parse_element_type();
      return type;
    }
  } else if (is_word("vector") || is_word("memref")) {
    const Cursor start = tok_.start;
    advance();
    if (!is(TokenKind::Less)) fail("expected '<' after '" + std::string(text_since(start)) + "'");
    skip_balanced();
    type.kind = Type::Kind::Other;
    type.text = std::string(text_since(start));
    return type;
  } else if (is(TokenKind::BareId) && (is_word("complex") || at_type_start())) {
    type.kind = Type::Kind::Scalar;
    type.element = parse_element_type();
  } else {
    fail_at(loc, "expected a type, found " + describe_current());
  }
  type.text = type_to_string(type);
  return type;
}

}  // namespace meshtest::frontends::stablehlo
