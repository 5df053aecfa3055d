// Typed YAML value reading with positioned diagnostics (see value_reader.h).
#include "config/value_reader.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "config/nearest_name.h"

namespace meshtest::config {

namespace {

std::string quoted_name(std::string_view field) { return "field '" + std::string(field) + "'"; }

template <class T>
std::optional<T> parse_plain_number(const YamlNode& n) {
  if (!n.is_scalar() || n.quoted) return std::nullopt;
  std::string_view text = n.value;
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::string format_number(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  // The shortest of %.{1..17}g that reads back exactly.
  for (int precision = 1; precision <= 17; ++precision) {
    char shorter[64];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, value);
    if (std::strtod(shorter, nullptr) == value) return shorter;
  }
  return buf;
}

void ValueReader::error(const YamlNode& at, std::string message) {
  diags_.push_back({at.where(file_), std::move(message), Severity::Error});
}

void ValueReader::warning(const YamlNode& at, std::string message) {
  diags_.push_back({at.where(file_), std::move(message), Severity::Warning});
}

std::optional<double> ValueReader::number(const YamlNode& n, std::string_view field, double lo, double hi) {
  const std::optional<double> v = parse_plain_number<double>(n);
  if (!v || !std::isfinite(*v)) {
    error(n, quoted_name(field) + " must be a number, got " + n.describe());
    return std::nullopt;
  }
  if (*v < lo || *v > hi) {
    const std::string range = hi == HUGE_VAL ? "at least " + format_number(lo)
                                             : "between " + format_number(lo) + " and " + format_number(hi);
    error(n, quoted_name(field) + " must be " + range + ", got " + n.value);
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> ValueReader::integer(const YamlNode& n, std::string_view field, int64_t lo, int64_t hi) {
  const std::optional<int64_t> v = parse_plain_number<int64_t>(n);
  const std::string range = hi == INT64_MAX ? "at least " + std::to_string(lo)
                                            : "between " + std::to_string(lo) + " and " + std::to_string(hi);
  if (!v || *v < lo || *v > hi) {
    error(n, quoted_name(field) + " must be an integer " + range + ", got " + n.describe());
    return std::nullopt;
  }
  return v;
}

std::optional<bool> ValueReader::boolean(const YamlNode& n, std::string_view field) {
  if (n.is_scalar() && !n.quoted) {
    for (const char* t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}) {
      if (n.value == t) return true;
    }
    for (const char* f : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"}) {
      if (n.value == f) return false;
    }
  }
  error(n, quoted_name(field) + " must be true or false, got " + n.describe());
  return std::nullopt;
}

std::optional<std::string> ValueReader::string(const YamlNode& n, std::string_view field) {
  if (n.is_scalar()) return n.value;
  error(n, quoted_name(field) + " must be a string, got " + n.describe());
  return std::nullopt;
}

std::optional<std::vector<std::string>> ValueReader::string_list(const YamlNode& n, std::string_view field) {
  if (n.is_scalar()) return std::vector<std::string>{n.value};
  if (n.kind != YamlNode::Kind::Sequence) {
    error(n, quoted_name(field) + " must be a string or a list of strings, got " + n.describe());
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (const YamlNode& item : n.children) {
    if (item.is_scalar()) out.push_back(item.value);
    else {
      error(item, "items of " + quoted_name(field) + " must be strings, got " + item.describe());
      ok = false;
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

void ValueReader::invalid_enum(const YamlNode& n, std::string_view field, const std::string& text,
                               const std::vector<std::string>& allowed) {
  std::string message = "invalid " + std::string(field) + " '" + text + "'";
  if (auto near = did_you_mean(text, allowed)) message += " (did you mean '" + *near + "'?)";
  error(n, message + "; allowed: " + join_names(allowed) + " (or the same in lower case)");
}

}  // namespace meshtest::config
