// Parsing and printing `NAME=VALUE` named values.
#include "pjrt/named_values.h"

#include <charconv>
#include <optional>

#include "core/error.h"

namespace meshtest::pjrt {

namespace {

std::optional<int64_t> as_int(std::string_view s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<float> as_float(std::string_view s) {
  if (s.find_first_of(".eE") == std::string_view::npos) return std::nullopt;
  float v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<std::vector<int64_t>> as_int_list(std::string_view s) {
  if (s.find(',') == std::string_view::npos) return std::nullopt;
  std::vector<int64_t> out;
  for (size_t start = 0;;) {
    const size_t comma = s.find(',', start);
    const std::optional<int64_t> v = as_int(s.substr(start, comma - start));
    if (!v) return std::nullopt;
    out.push_back(*v);
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

NamedValue parse_named_value(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw ParseError("PJRT option '" + std::string(text) + "': expected NAME=VALUE (or NAME:string=VALUE)");
  }
  std::string_view name = text.substr(0, eq);
  const std::string_view value = text.substr(eq + 1);
  NamedValue out;
  if (name.size() > 7 && name.substr(name.size() - 7) == ":string") {
    out.name = std::string(name.substr(0, name.size() - 7));
    out.value = std::string(value);
    return out;
  }
  out.name = std::string(name);
  if (value == "true" || value == "false") {
    out.value = value == "true";
  } else if (const auto i = as_int(value)) {
    out.value = *i;
  } else if (const auto list = as_int_list(value)) {
    out.value = *list;
  } else if (const auto f = as_float(value)) {
    out.value = *f;
  } else {
    out.value = std::string(value);
  }
  return out;
}

std::string named_value_text(const NamedValue& v) {
  struct Printer {
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(const std::vector<int64_t>& l) const {
      std::string s;
      for (int64_t i : l) s += (s.empty() ? "" : ",") + std::to_string(i);
      return s;
    }
    std::string operator()(float f) const { return std::to_string(f); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
  };
  return v.name + "=" + std::visit(Printer{}, v.value);
}

std::vector<NamedValue> parse_named_values(const std::vector<std::string>& texts) {
  std::vector<NamedValue> out;
  for (const std::string& t : texts) out.push_back(parse_named_value(t));
  return out;
}

}  // namespace meshtest::pjrt
