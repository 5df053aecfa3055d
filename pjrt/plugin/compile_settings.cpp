// Reading env_option_overrides into compiler options, one reader per value form.
#include "pjrt/plugin/compile_settings.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

#include "core/error.h"

#include "pjrt/compile_option_keys.h"
#include "pjrt/plugin/plugin_errors.h"

namespace meshtest::pjrt::plugin {

namespace {

namespace keys = option_keys;

std::string known_keys() {
  std::string text;
  for (std::string_view k : keys::kAll) text += (text.empty() ? "" : ", ") + std::string(k);
  return text;
}

[[noreturn]] void bad_value(const std::string& key, const OptionOverride& value, const std::string& wanted) {
  invalid_argument("compile option '" + key + "' must be " + wanted + ", got '" + option_override_text(value) + "'");
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

template <size_t N>
bool one_of(const std::string& s, const std::array<std::string_view, N>& spellings) {
  return std::find(spellings.begin(), spellings.end(), s) != spellings.end();
}

bool read_bool(const std::string& key, const OptionOverride& value) {
  if (const bool* b = std::get_if<bool>(&value)) return *b;
  if (const std::string* s = std::get_if<std::string>(&value)) {
    if (one_of(lower(*s), keys::kTrueSpellings)) return true;
    if (one_of(lower(*s), keys::kFalseSpellings)) return false;
  }
  bad_value(key, value, "a bool (or true/1/yes/on, false/0/no/off)");
}

int64_t read_int(const std::string& key, const OptionOverride& value) {
  if (const int64_t* i = std::get_if<int64_t>(&value)) return *i;
  if (const std::string* s = std::get_if<std::string>(&value)) {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
    if (!s->empty() && ec == std::errc() && end == s->data() + s->size()) return v;
  }
  bad_value(key, value, "an integer (or its decimal text)");
}

const std::string& read_string(const std::string& key, const OptionOverride& value) {
  if (const std::string* s = std::get_if<std::string>(&value)) return *s;
  bad_value(key, value, "a string");
}

DType read_weight_dtype(const std::string& key, const OptionOverride& value) {
  const std::string s = lower(read_string(key, value));
  if (s == keys::kWeightDtypeBfp8 || s == "bfp8_b") return DType::BFP8_B;
  if (s == "bf16" || s.empty()) return DType::BF16;
  bad_value(key, value, "\"bfp_bf8\", \"bfp8_b\", \"bf16\" or \"\"");
}

// tt-xla's lower-case names or any case of meshtest's; "ttnn_default" keeps meshtest's default.
std::string read_math_fidelity(const std::string& key, const OptionOverride& value, const std::string& current) {
  const std::string& s = read_string(key, value);
  if (lower(s) == keys::kMathFidelityTtnnDefault) return current;
  try {
    return backend::canonical_math_fidelity(s);
  } catch (const ParseError& e) {
    invalid_argument("compile option '" + key + "': " + e.what());
  }
}

void apply(CompileSettings& settings, const std::string& key, const OptionOverride& value) {
  backend::DeviceSettings& o = settings.options;
  if (key == keys::kOptimizationLevel) {
    const int64_t level = read_int(key, value);
    if (level < 0 || level > 2) bad_value(key, value, "0, 1 or 2");
    o.optimization_level = static_cast<int>(level);
  } else if (key == keys::kMathFidelity) {
    o.math_fidelity = read_math_fidelity(key, value, o.math_fidelity);
  } else if (key == keys::kWeightDtype) {
    o.weight_dtype = read_weight_dtype(key, value);
  } else if (key == keys::kEnableFusion) {
    o.enable_fusion = read_bool(key, value);
  } else if (key == keys::kEnableCompositeOps) {
    o.enable_composite_ops = read_bool(key, value);
  } else if (key == keys::kEnableTrace) {
    settings.enable_trace = read_bool(key, value);
  } else {
    invalid_argument("unknown compile option '" + key + "' (meshtest reads: " + known_keys() + ")");
  }
}

}  // namespace

CompileSettings read_compile_settings(const std::map<std::string, OptionOverride>& overrides) {
  CompileSettings settings;
  for (const auto& [key, value] : overrides) apply(settings, key, value);
  return settings;
}

}  // namespace meshtest::pjrt::plugin
