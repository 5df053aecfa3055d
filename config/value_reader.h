// Typed reading of YAML values for test_config fields: numbers, integers,
// booleans, strings, string lists and enums, each with range checks and a
// positioned "field 'x' must be ..., got ..." diagnostic when it fails.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.h"
#include "config/yaml_tree.h"

namespace meshtest::config {

class ValueReader {
 public:
  ValueReader(const std::string& file, std::vector<Diagnostic>& diagnostics) : file_(file), diags_(diagnostics) {}

  const std::string& file() const { return file_; }
  void error(const YamlNode& at, std::string message);
  void warning(const YamlNode& at, std::string message);

  // A plain (unquoted) finite number in [lo, hi].
  std::optional<double> number(const YamlNode& n, std::string_view field, double lo, double hi);
  // A plain integer in [lo, hi].
  std::optional<int64_t> integer(const YamlNode& n, std::string_view field, int64_t lo, int64_t hi);
  // true/false (also True, TRUE, yes, no, on, off as YAML 1.1 readers accept).
  std::optional<bool> boolean(const YamlNode& n, std::string_view field);
  // Any scalar, as written.
  std::optional<std::string> string(const YamlNode& n, std::string_view field);
  // A string or a list of strings.
  std::optional<std::vector<std::string>> string_list(const YamlNode& n, std::string_view field);
  // A scalar that `parse` accepts; otherwise lists `allowed`.
  template <class Parse>
  auto enumeration(const YamlNode& n, std::string_view field, Parse parse, const std::vector<std::string>& allowed)
      -> decltype(parse(std::string_view{})) {
    const std::optional<std::string> text = string(n, field);
    if (!text) return std::nullopt;
    auto value = parse(*text);
    if (!value) invalid_enum(n, field, *text, allowed);
    return value;
  }

 private:
  void invalid_enum(const YamlNode& n, std::string_view field, const std::string& text,
                    const std::vector<std::string>& allowed);

  const std::string& file_;
  std::vector<Diagnostic>& diags_;
};

// Shortest decimal text of a number as it would be written in YAML ("0.99", "1e-05").
std::string format_number(double value);

}  // namespace meshtest::config
