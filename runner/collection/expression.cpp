// Lexer, recursive-descent parser and evaluator of pytest-style expressions.
// `and` / `or` chains are n-ary nodes, so a long chain is neither a deep
// recursion to parse nor to evaluate; parentheses and `not` are limited to
// kMaxNesting levels.
#include "runner/collection/expression.h"

#include <cctype>
#include <vector>

#include "config/marker_names.h"
#include "core/error.h"

namespace meshtest::runner {

struct Expression::Node {
  enum class Kind { Ident, Not, And, Or } kind;
  std::string ident;
  std::vector<std::shared_ptr<const Node>> operands;
};

namespace {

using Node = Expression::Node;
using NodePtr = std::shared_ptr<const Node>;

constexpr int kMaxNesting = 256;

struct Token {
  enum class Kind { Ident, And, Or, Not, LParen, RParen, End } kind;
  std::string text;
  size_t column;  // 1-based
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view what) : what_(what) { lex(text); }

  NodePtr parse() {
    if (peek().kind == Token::Kind::End) return nullptr;
    NodePtr e = parse_or();
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
      } else if (config::is_identifier_char(c)) {
        const size_t start = i;
        while (i < s.size() && config::is_identifier_char(s[i])) ++i;
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

  // operand (op operand)*, as one n-ary node when there is more than one operand.
  template <class Operand>
  NodePtr parse_chain(Token::Kind op, Node::Kind kind, Operand operand) {
    NodePtr first = operand();
    if (peek().kind != op) return first;
    auto chain = std::make_shared<Node>(Node{kind, {}, {first}});
    while (peek().kind == op) {
      next();
      chain->operands.push_back(operand());
    }
    return chain;
  }

  NodePtr parse_or() {
    return parse_chain(Token::Kind::Or, Node::Kind::Or, [this] { return parse_and(); });
  }

  NodePtr parse_and() {
    return parse_chain(Token::Kind::And, Node::Kind::And, [this] { return parse_not(); });
  }

  NodePtr parse_not() {
    const Token& t = next();
    if ((t.kind == Token::Kind::Not || t.kind == Token::Kind::LParen) && ++depth_ > kMaxNesting) {
      fail("nested more than " + std::to_string(kMaxNesting) + " levels deep", t.column);
    }
    switch (t.kind) {
      case Token::Kind::Not: {
        NodePtr operand = parse_not();
        --depth_;
        return std::make_shared<Node>(Node{Node::Kind::Not, {}, {operand}});
      }
      case Token::Kind::LParen: {
        NodePtr inner = parse_or();
        if (peek().kind != Token::Kind::RParen) fail("expected ')', got '" + peek().text + "'", peek().column);
        next();
        --depth_;
        return inner;
      }
      case Token::Kind::Ident: return std::make_shared<Node>(Node{Node::Kind::Ident, t.text, {}});
      default: fail("expected an identifier, 'not' or '(', got '" + t.text + "'", t.column);
    }
  }

  std::string_view what_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
};

bool eval(const Node& n, const std::function<bool(const std::string&)>& matches) {
  switch (n.kind) {
    case Node::Kind::Ident: return matches(n.ident);
    case Node::Kind::Not: return !eval(*n.operands[0], matches);
    case Node::Kind::And:
      for (const NodePtr& o : n.operands) {
        if (!eval(*o, matches)) return false;
      }
      return true;
    case Node::Kind::Or:
      for (const NodePtr& o : n.operands) {
        if (eval(*o, matches)) return true;
      }
      return false;
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

std::vector<std::string> Expression::identifiers() const {
  std::vector<std::string> out;
  std::vector<const Node*> pending;  // explicit stack: no recursion, like eval's depth limit
  if (root_) pending.push_back(root_.get());
  while (!pending.empty()) {
    const Node* n = pending.back();
    pending.pop_back();
    if (n->kind == Node::Kind::Ident) out.push_back(n->ident);
    for (auto it = n->operands.rbegin(); it != n->operands.rend(); ++it) pending.push_back(it->get());
  }
  return out;
}

}  // namespace meshtest::runner
