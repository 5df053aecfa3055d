// IR text parser: a small hand-written lexer plus a recursive-descent parser for
// the text form described in core/ir_text.h. Every error is a ParseError
// "<source>:<line>:<col>: message" (1-based); types are inferred while parsing so
// a wrong declared type is reported where it is written, and the finished graph
// goes through verify_graph.
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/ir_text.h"
#include "core/limits.h"

namespace meshtest {

namespace {

// Characters allowed in an unquoted @name (keep in sync with ir_printer.cpp).
bool is_bare_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == ':' || c == '/' || c == '-';
}
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_alpha(c) || is_digit(c); }
bool is_value_name_char(char c) { return is_ident_char(c) || c == '.'; }

enum class Tok {
  End,
  Ident,
  AtName,
  ValueName,
  Number,
  String,
  LBrace,
  RBrace,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  Equal,
  Colon
};

struct Token {
  Tok kind = Tok::End;
  std::string text;  // identifier, name (unquoted, without @/%), number text or unescaped string
  int line = 1;
  int col = 1;
};

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::End:
      return "end of input";
    case Tok::String:
      return "a string";
    case Tok::AtName:
      return "'@" + t.text + "'";
    case Tok::ValueName:
      return "'%" + t.text + "'";
    default:
      return "'" + t.text + "'";
  }
}

struct Pos {
  int line = 1;
  int col = 1;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  Graph parse() {
    const Token kw = next();
    if (kw.kind != Tok::Ident || kw.text != "graph") fail(kw, "expected 'graph', got " + describe(kw));
    graph_.name = expect(Tok::AtName, "a graph name '@name'").text;
    expect(Tok::LBrace, "'{'");
    Token end;
    while (true) {
      const Token& t = peek();
      if (t.kind == Tok::RBrace) {
        end = next();
        break;
      }
      if (t.kind == Tok::Ident && (t.text == "input" || t.text == "weight")) {
        parse_param();
      } else if (t.kind == Tok::Ident && t.text == "output") {
        parse_output();
      } else if (t.kind == Tok::ValueName) {
        parse_op();
      } else if (t.kind == Tok::End) {
        fail(t, "expected '}' at the end of the graph, got end of input");
      } else {
        fail(t, "expected 'input', 'weight', '%name = op(...)', 'output' or '}', got " + describe(t));
      }
    }
    const Token& after = peek();
    if (after.kind != Tok::End) fail(after, "unexpected " + describe(after) + " after the end of the graph");
    verify(end);
    return std::move(graph_);
  }

 private:
  // ---- errors ----
  [[noreturn]] void fail(int line, int col, const std::string& message) const {
    throw ParseError(std::string(source_) + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + message);
  }
  [[noreturn]] void fail(const Token& t, const std::string& message) const { fail(t.line, t.col, message); }

  // ---- lexer ----
  char at(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }
  bool more() const { return pos_ < text_.size(); }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }

  void skip_space_and_comments() {
    while (more()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
        advance();
      } else if (c == '/' && at(pos_ + 1) == '/') {
        while (more() && text_[pos_] != '\n') advance();
      } else {
        break;
      }
    }
  }

  std::string take_while(bool (*pred)(char)) {
    const size_t start = pos_;
    while (more() && pred(text_[pos_])) advance();
    return std::string(text_.substr(start, pos_ - start));
  }

  // Body of a "..." string; pos_ is on the opening quote.
  std::string lex_string() {
    const int line = line_, col = col_;
    advance();
    std::string out;
    while (true) {
      if (!more() || text_[pos_] == '\n') fail(line, col, "unterminated string");
      const char c = text_[pos_];
      if (c == '"') {
        advance();
        return out;
      }
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      const int esc_line = line_, esc_col = col_;
      advance();
      const char e = at(pos_);
      if (e == '"' || e == '\\') {
        out += e;
      } else if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (e == 'x' && std::isxdigit(static_cast<unsigned char>(at(pos_ + 1))) &&
                 std::isxdigit(static_cast<unsigned char>(at(pos_ + 2)))) {
        out += static_cast<char>(std::stoi(std::string(text_.substr(pos_ + 1, 2)), nullptr, 16));
        advance();
        advance();
      } else {
        fail(esc_line, esc_col, "invalid escape in string (use \\\", \\\\, \\n, \\t or \\xHH)");
      }
      advance();
    }
  }

  void lex_digits(const char* what) {
    if (!is_digit(at(pos_))) fail(line_, col_, std::string("expected digits ") + what);
    while (more() && is_digit(text_[pos_])) advance();
  }

  Token lex() {
    skip_space_and_comments();
    Token t;
    t.line = line_;
    t.col = col_;
    if (!more()) return t;
    const char c = text_[pos_];
    const size_t start = pos_;
    if (is_alpha(c)) {
      t.kind = Tok::Ident;
      t.text = take_while(is_ident_char);
    } else if (c == '@') {
      advance();
      t.kind = Tok::AtName;
      if (at(pos_) == '"') {
        t.text = lex_string();
      } else {
        t.text = take_while(is_bare_name_char);
        if (t.text.empty()) fail(t, "expected a name after '@'");
      }
    } else if (c == '%') {
      advance();
      t.kind = Tok::ValueName;
      t.text = take_while(is_value_name_char);
      if (t.text.empty()) fail(t, "expected a name after '%'");
    } else if (c == '"') {
      t.kind = Tok::String;
      t.text = lex_string();
    } else if (is_digit(c) || c == '-') {
      t.kind = Tok::Number;
      if (c == '-') advance();
      if (c == '-' && is_alpha(at(pos_))) {
        const std::string word = take_while(is_ident_char);
        if (word != "inf" && word != "nan") fail(t, "unexpected '-" + word + "'");
      } else {
        lex_digits(c == '-' ? "after '-'" : "");
        if (at(pos_) == '.') {
          advance();
          lex_digits("after '.'");
        }
        if (at(pos_) == 'e' || at(pos_) == 'E') {
          advance();
          if (at(pos_) == '+' || at(pos_) == '-') advance();
          lex_digits("in the exponent");
        }
      }
      t.text = std::string(text_.substr(start, pos_ - start));
    } else {
      static const std::string kPunct = "{}()[],=:";
      static const Tok kKinds[] = {Tok::LBrace,   Tok::RBrace, Tok::LParen, Tok::RParen, Tok::LBracket,
                                   Tok::RBracket, Tok::Comma,  Tok::Equal,  Tok::Colon};
      const size_t p = kPunct.find(c);
      if (p == std::string::npos) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f) fail(t, std::string("unexpected character '") + c + "'");
        static const char* kHex = "0123456789abcdef";
        fail(t, std::string("unexpected byte 0x") + kHex[u >> 4] + kHex[u & 15]);
      }
      t.kind = kKinds[p];
      t.text = std::string(1, c);
      advance();
    }
    return t;
  }

  const Token& peek() {
    if (!peeked_) {
      lookahead_ = lex();
      peeked_ = true;
    }
    return lookahead_;
  }
  Token next() {
    peek();
    peeked_ = false;
    return std::move(lookahead_);
  }
  Token expect(Tok kind, const std::string& what) {
    Token t = next();
    if (t.kind != kind) fail(t, "expected " + what + ", got " + describe(t));
    return t;
  }
  bool accept(Tok kind) {
    if (peek().kind != kind) return false;
    next();
    return true;
  }

  // ---- literals ----
  static bool looks_float(const Token& t) { return t.text.find_first_of(".eEn") != std::string::npos; }

  int64_t parse_int(const Token& t, const std::string& what) const {
    if (t.kind != Tok::Number || looks_float(t)) fail(t, "expected " + what + ", got " + describe(t));
    int64_t v = 0;
    const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) fail(t, "integer " + t.text + " out of range");
    return v;
  }

  uint64_t parse_seed(const Token& t) const {
    if (t.kind != Tok::Number || looks_float(t) || t.text[0] == '-') {
      fail(t, "expected a seed (unsigned 64-bit integer), got " + describe(t));
    }
    uint64_t v = 0;
    const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) fail(t, "seed " + t.text + " out of range");
    return v;
  }

  // A number token or bare inf/nan; integers are accepted where a float is expected.
  double parse_float(const Token& t) const {
    const bool word = t.kind == Tok::Ident && (t.text == "inf" || t.text == "nan");
    if (t.kind != Tok::Number && !word) fail(t, "expected a number, got " + describe(t));
    const bool negative = t.text[0] == '-';
    const std::string_view body = std::string_view(t.text).substr(negative ? 1 : 0);
    if (body == "inf")
      return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (body == "nan") {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      return negative ? -nan : nan;
    }
    double v = 0.0;
    const auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) fail(t, "number " + t.text + " out of range");
    return v;
  }

  TensorType parse_type() {
    const Token d = next();
    if (d.kind != Tok::Ident) fail(d, "expected a type like f32[1,3], got " + describe(d));
    TensorType type;
    try {
      type.dtype = parse_dtype(d.text);
    } catch (const ParseError& e) {
      fail(d, e.what());
    }
    expect(Tok::LBracket, "'[' after the dtype");
    if (accept(Tok::RBracket)) return type;
    do {
      const Token n = next();
      const int64_t dim = parse_int(n, "a dimension");
      if (dim < 0) fail(n, "dimension " + n.text + " must not be negative");
      type.shape.push_back(dim);
    } while (accept(Tok::Comma));
    expect(Tok::RBracket, "',' or ']' in the shape");
    try {
      checked_tensor_bytes(type.dtype, type.shape, "declared type");
    } catch (const Error& e) {
      fail(d, e.what());
    }
    return type;
  }

  AttrValue parse_attr_value() {
    const Token t = next();
    if (t.kind == Tok::String) return t.text;
    if (t.kind == Tok::LBracket) {
      std::vector<int64_t> list;
      if (accept(Tok::RBracket)) return list;
      do {
        list.push_back(parse_int(next(), "an integer (attribute lists hold integers only)"));
      } while (accept(Tok::Comma));
      expect(Tok::RBracket, "',' or ']' in the list");
      return list;
    }
    if (t.kind == Tok::Number && !looks_float(t)) return parse_int(t, "an integer");
    if (t.kind == Tok::Number || t.kind == Tok::Ident) return parse_float(t);
    fail(t, "expected an attribute value (integer, float, string or [list]), got " + describe(t));
  }

  Attrs parse_attrs() {
    Attrs attrs;
    expect(Tok::LBrace, "'{'");
    if (accept(Tok::RBrace)) return attrs;
    do {
      const Token key = next();
      if (key.kind != Tok::Ident && key.kind != Tok::String)
        fail(key, "expected an attribute name, got " + describe(key));
      if (attrs.has(key.text)) fail(key, "duplicate attribute '" + key.text + "'");
      expect(Tok::Equal, "'=' after the attribute name");
      attrs.set(key.text, parse_attr_value());
    } while (accept(Tok::Comma));
    expect(Tok::RBrace, "',' or '}' after the attribute");
    return attrs;
  }

  // ---- statements ----
  ValueId parse_value_ref() {
    const Token t = next();
    if (t.kind == Tok::AtName) {
      auto it = params_.find(t.text);
      if (it == params_.end()) fail(t, "undefined parameter '@" + t.text + "'");
      return it->second;
    }
    if (t.kind == Tok::ValueName) {
      auto it = values_.find(t.text);
      if (it == values_.end()) fail(t, "undefined value '%" + t.text + "'");
      return it->second;
    }
    fail(t, "expected a value (%name or @name), got " + describe(t));
  }

  std::optional<Initializer> parse_initializer() {
    const Token kind = next();
    if (kind.kind == Tok::Ident && kind.text == "data") return std::nullopt;
    if (kind.kind == Tok::Ident && kind.text == "constant") {
      expect(Tok::LParen, "'(' after 'constant'");
      const double value = parse_float(next());
      expect(Tok::RParen, "')'");
      return Initializer::constant(value);
    }
    if (kind.kind != Tok::Ident || (kind.text != "normal" && kind.text != "uniform")) {
      fail(kind, "expected an initializer (normal(...), uniform(...), constant(...) or data), got " + describe(kind));
    }
    const bool normal = kind.text == "normal";
    const std::string names[3] = {normal ? "mean" : "low", normal ? "std" : "high", "seed"};
    bool seen[3] = {false, false, false};
    Initializer init = normal ? Initializer::normal(0, 1, 0) : Initializer::uniform(0, 1, 0);
    expect(Tok::LParen, "'(' after '" + kind.text + "'");
    do {
      const Token key = expect(Tok::Ident, "an argument name");
      int which = 0;
      while (which < 3 && names[which] != key.text) ++which;
      if (which == 3) {
        fail(key, "unknown " + kind.text + "() argument '" + key.text + "' (expected " + names[0] + ", " + names[1] +
                      ", seed)");
      }
      if (seen[which]) fail(key, "duplicate " + kind.text + "() argument '" + key.text + "'");
      seen[which] = true;
      expect(Tok::Equal, "'=' after '" + key.text + "'");
      const Token value = next();
      if (which == 0) init.a = parse_float(value);
      if (which == 1) init.b = parse_float(value);
      if (which == 2) init.seed = parse_seed(value);
    } while (accept(Tok::Comma));
    const Token close = expect(Tok::RParen, "',' or ')'");
    for (int i = 0; i < 3; ++i) {
      if (!seen[i]) fail(close, kind.text + "() needs '" + names[i] + "'");
    }
    return init;
  }

  void parse_param() {
    const Token kw = next();
    const Token name = expect(Tok::AtName, "a parameter name '@name'");
    if (name.text.empty()) fail(name, "parameter names must not be empty");
    if (params_.count(name.text)) fail(name, "duplicate parameter '@" + name.text + "'");
    expect(Tok::Colon, "':' after the parameter name");
    TensorType type = parse_type();
    Param p;
    p.name = name.text;
    p.kind = kw.text == "input" ? ParamKind::Input : ParamKind::Weight;
    if (p.kind == ParamKind::Weight) {
      expect(Tok::Equal, "'= <initializer>' (normal, uniform, constant or data)");
      p.init = parse_initializer();
    }
    p.value = graph_.add_value(std::move(type), p.name);
    params_.emplace(p.name, p.value);
    graph_.params.push_back(std::move(p));
  }

  void parse_op() {
    const Token result = next();
    if (values_.count(result.text)) fail(result, "value '%" + result.text + "' is already defined");
    expect(Tok::Equal, "'=' after '%" + result.text + "'");
    const Token name = expect(Tok::Ident, "an op name");
    const std::optional<OpKind> kind = find_op(name.text);
    if (!kind) fail(name, "unknown op '" + name.text + "'");
    expect(Tok::LParen, "'(' after the op name");
    std::vector<ValueId> inputs;
    if (!accept(Tok::RParen)) {
      do {
        inputs.push_back(parse_value_ref());
      } while (accept(Tok::Comma));
      expect(Tok::RParen, "',' or ')' after the operand");
    }
    Attrs attrs;
    if (peek().kind == Tok::LBrace) attrs = parse_attrs();
    expect(Tok::Colon, "':' and the result type");
    const Token type_token = peek();
    const TensorType declared = parse_type();

    const int lo = op_min_inputs(*kind), hi = op_max_inputs(*kind);
    const int n = static_cast<int>(inputs.size());
    if (n < lo || (hi >= 0 && n > hi)) {
      const std::string want = lo == hi ? std::to_string(lo)
                               : hi < 0 ? "at least " + std::to_string(lo)
                                        : std::to_string(lo) + " to " + std::to_string(hi);
      fail(name, "'" + name.text + "' takes " + want + " operand(s), got " + std::to_string(n));
    }
    std::vector<TensorType> types;
    for (ValueId v : inputs) types.push_back(graph_.type(v));
    TensorType inferred;
    try {
      inferred = infer_type(*kind, types, attrs);
    } catch (const std::exception& e) {
      fail(name, name.text + ": " + e.what());
    }
    if (inferred != declared) {
      fail(type_token, "declared type " + type_to_string(declared) + " does not match the inferred type " +
                           type_to_string(inferred));
    }
    const ValueId out = graph_.add_value(declared);
    graph_.ops.push_back({*kind, std::move(inputs), out, std::move(attrs)});
    op_pos_.push_back({name.line, name.col});
    values_.emplace(result.text, out);
  }

  void parse_output() {
    next();
    const Token name = expect(Tok::AtName, "an output name '@name'");
    if (!outputs_.insert(name.text).second) fail(name, "duplicate output '@" + name.text + "'");
    expect(Tok::Equal, "'=' after the output name");
    graph_.outputs.push_back({name.text, parse_value_ref()});
  }

  // verify_graph errors name the op ("op #3 add: ..."): report them at that op's line.
  void verify(const Token& end) {
    try {
      verify_graph(graph_);
    } catch (const std::exception& e) {
      const std::string message = e.what();
      Pos where{end.line, end.col};
      if (message.rfind("op #", 0) == 0) {
        size_t index = 0;
        for (size_t i = 4; i < message.size() && is_digit(message[i]) && index < graph_.ops.size(); ++i) {
          index = index * 10 + static_cast<size_t>(message[i] - '0');
        }
        if (index < op_pos_.size()) where = op_pos_[index];
      }
      fail(where.line, where.col, message);
    }
  }

  std::string_view text_;
  std::string_view source_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
  Token lookahead_;
  bool peeked_ = false;

  Graph graph_;
  std::unordered_map<std::string, ValueId> params_;
  std::unordered_map<std::string, ValueId> values_;
  std::unordered_set<std::string> outputs_;
  std::vector<Pos> op_pos_;
};

}  // namespace

Graph parse_graph(std::string_view text, std::string_view source_name) { return Parser(text, source_name).parse(); }

}  // namespace meshtest
