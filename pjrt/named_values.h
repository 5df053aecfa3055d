// `--pjrt-option NAME=VALUE` as PJRT named
// values, the typed key/values PJRT_Client_Create takes. The value's form
// gives its type: true/false -> bool, an integer -> int64, integers joined by
// ',' -> int64 list, a decimal number -> float, anything else -> string;
// `NAME:string=VALUE` keeps VALUE a string whatever it looks like.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace meshtest::pjrt {

struct NamedValue {
  std::string name;
  std::variant<std::string, int64_t, std::vector<int64_t>, float, bool> value;
};

// Throws meshtest::ParseError naming the text when it has no '=' or no name.
NamedValue parse_named_value(std::string_view text);
// Each of `texts` through parse_named_value.
std::vector<NamedValue> parse_named_values(const std::vector<std::string>& texts);
// "name=value" as parse_named_value reads it back.
std::string named_value_text(const NamedValue& value);

}  // namespace meshtest::pjrt
