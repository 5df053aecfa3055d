// Identifier rules shared by YAML markers and the -k/-m expression lexer.
#include "config/marker_names.h"

#include <cctype>

namespace meshtest::config {

bool is_identifier_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || u >= 0x80 || c == '_' || c == ':' || c == '+' || c == '-' || c == '.' || c == '[' ||
         c == ']' || c == '\\' || c == '/';
}

bool is_expression_keyword(std::string_view word) { return word == "and" || word == "or" || word == "not"; }

std::optional<std::string> marker_name_problem(std::string_view name) {
  if (name.empty()) return std::string("is empty");
  if (is_expression_keyword(name)) return "cannot be selected with -m ('" + std::string(name) + "' is an operator)";
  for (char c : name) {
    if (!is_identifier_char(c)) {
      return "cannot be selected with -m (character '" + std::string(1, c) +
             "'; use letters, digits and _ : + - . [ ] \\ /)";
    }
  }
  return std::nullopt;
}

}  // namespace meshtest::config
