// Lexer, recursive-descent parser and evaluator of pytest-style expressions.
#include "runner/expression.h"

#include <cctype>
#include <vector>

#include "core/error.h"

namespace meshtest::runner {

struct Expression::Node {
  enum class Kind { Ident, Not, And, Or } kind;
  std::string ident;
  std::shared_ptr<const Node> left, right;
};

namespace {

using Node = Expression::Node;

struct Token {
  enum class Kind { Ident, And, Or, Not, LParen, RParen, End } kind;
  std::string text;
  size_t column;  // 1-based
};

bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '+' || c == '-' || c == '.' ||
         c == '[' || c == ']' || c == '\\' || c == '/';
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view what) : what_(what) { lex(text); }

  std::shared_ptr<const Node> parse() {
    if (peek().kind == Token::Kind::End) return nullptr;
    auto e = parse_or();
    if (peek().kind != Token::Kind::End) fail("unexpected '" + peek().text + "'", peek().column);
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& message, size_t column) {
    throw ParseError(std::string(what_) + ": " + message + " at column " + std::to_string(column));
  }

  void lex(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
      const char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (c == '(' || c == ')') {
        tokens_.push_back({c == '(' ? Token::Kind::LParen : Token::Kind::RParen, std::string(1, c), i + 1});
        ++i;
      } else if (ident_char(c)) {
        const size_t start = i;
        while (i < s.size() && ident_char(s[i])) ++i;
        std::string word(s.substr(start, i - start));
        Token::Kind kind = Token::Kind::Ident;
        if (word == "and") kind = Token::Kind::And;
        else if (word == "or") kind = Token::Kind::Or;
        else if (word == "not") kind = Token::Kind::Not;
        tokens_.push_back({kind, word, start + 1});
      } else {
        fail(std::string("unexpected character '") + c + "'", i + 1);
      }
    }
    tokens_.push_back({Token::Kind::End, "end of input", s.size() + 1});
  }

  const Token& peek() const { return tokens_[pos_]; }
  const Token& next() { return tokens_[pos_++]; }

  std::shared_ptr<const Node> parse_or() {
    auto left = parse_and();
    while (peek().kind == Token::Kind::Or) {
      next();
      left = std::make_shared<Node>(Node{Node::Kind::Or, {}, left, parse_and()});
    }
    return left;
  }

  std::shared_ptr<const Node> parse_and() {
    auto left = parse_not();
    while (peek().kind == Token::Kind::And) {
      next();
      left = std::make_shared<Node>(Node{Node::Kind::And, {}, left, parse_not()});
    }
    return left;
  }

  std::shared_ptr<const Node> parse_not() {
    const Token& t = next();
    switch (t.kind) {
      case Token::Kind::Not: return std::make_shared<Node>(Node{Node::Kind::Not, {}, parse_not(), nullptr});
      case Token::Kind::LParen: {
        auto inner = parse_or();
        if (peek().kind != Token::Kind::RParen) fail("expected ')', got '" + peek().text + "'", peek().column);
        next();
        return inner;
      }
      case Token::Kind::Ident: return std::make_shared<Node>(Node{Node::Kind::Ident, t.text, nullptr, nullptr});
      default: fail("expected an identifier, 'not' or '(', got '" + t.text + "'", t.column);
    }
  }

  std::string_view what_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

bool eval(const Node& n, const std::function<bool(const std::string&)>& matches) {
  switch (n.kind) {
    case Node::Kind::Ident: return matches(n.ident);
    case Node::Kind::Not: return !eval(*n.left, matches);
    case Node::Kind::And: return eval(*n.left, matches) && eval(*n.right, matches);
    case Node::Kind::Or: return eval(*n.left, matches) || eval(*n.right, matches);
  }
  return false;
}

}  // namespace

Expression Expression::parse(std::string_view text, std::string_view what) {
  Expression e;
  e.root_ = Parser(text, what).parse();
  return e;
}

bool Expression::evaluate(const std::function<bool(const std::string&)>& matches) const {
  return root_ == nullptr || eval(*root_, matches);
}

}  // namespace meshtest::runner
