// What a marker name may look like: an identifier of the -k/-m expression
// language (pytest's: letters, digits and _ : + - . [ ] \ /, not and/or/not),
// so every YAML marker can be selected with -m.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace meshtest::config {

bool is_identifier_char(char c);  // bytes of non-ASCII UTF-8 letters count as identifier characters
bool is_expression_keyword(std::string_view word);  // and, or, not

// nullopt when `name` is a usable marker, else why not ("cannot be selected with -m: ...").
std::optional<std::string> marker_name_problem(std::string_view name);

}  // namespace meshtest::config
