// pytest's selection expression language, shared by -k and -m:
//   expr     := and_expr ('or' and_expr)*
//   and_expr := not_expr ('and' not_expr)*
//   not_expr := 'not' not_expr | '(' expr ')' | ident
// Precedence not > and > or; identifiers are runs of letters, digits and
// _ : + - . [ ] \ / (so test ids are identifiers; config/marker_names.h has
// the rule). An empty expression matches everything. Parentheses and `not`
// nest at most 256 levels. What an identifier means is the caller's: -m matches a
// marker exactly, -k matches a case-insensitive substring of the id or a marker.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace meshtest::runner {

class Expression {
 public:
  // Throws ParseError "<what>: <message> at column N" for a malformed expression.
  static Expression parse(std::string_view text, std::string_view what = "expression");
  bool evaluate(const std::function<bool(const std::string&)>& matches) const;
  bool empty() const { return root_ == nullptr; }
  // Every identifier in the expression, in order of appearance (with repeats).
  std::vector<std::string> identifiers() const;

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace meshtest::runner
