// The table of PJRT_Client_Create options and the reader that checks names and types.
#include "pjrt/plugin/client_options.h"

#include <array>
#include <functional>
#include <string_view>

#include "pjrt/plugin/plugin_errors.h"

namespace meshtest::pjrt::plugin {

namespace {

struct OptionSpec {
  std::string_view name;
  PJRT_NamedValue_Type type;
  std::string_view default_text;
  std::string_view doc;
  std::function<void(ClientOptions&, const PJRT_NamedValue&)> apply;
};

std::string_view type_name(PJRT_NamedValue_Type type) {
  switch (type) {
    case PJRT_NamedValue_kString: return "string";
    case PJRT_NamedValue_kInt64: return "int64";
    case PJRT_NamedValue_kInt64List: return "int64 list";
    case PJRT_NamedValue_kFloat: return "float";
    case PJRT_NamedValue_kBool: return "bool";
  }
  return "unknown type";
}

std::string string_value(const PJRT_NamedValue& v) {
  return v.string_value == nullptr ? std::string() : std::string(v.string_value, v.value_size);
}

const std::array<OptionSpec, 1>& option_specs() {
  static const std::array<OptionSpec, 1> specs{{
      {"arch", PJRT_NamedValue_kString, "n150",
       "arch profile: chip kind and device count (n150, n300, n300-llmbox, ...)",
       [](ClientOptions& o, const PJRT_NamedValue& v) { o.arch = string_value(v); }},
  }};
  return specs;
}

}  // namespace

std::string known_client_options() {
  std::string text;
  for (const OptionSpec& s : option_specs()) {
    if (!text.empty()) text += "; ";
    text += std::string(s.name) + " (" + std::string(type_name(s.type)) + ", default " + std::string(s.default_text) +
            ": " + std::string(s.doc) + ")";
  }
  return text;
}

ClientOptions read_client_options(const PJRT_NamedValue* values, size_t count) {
  ClientOptions options;
  if (count > 0 && values == nullptr) invalid_argument("PJRT_Client_Create: create_options is null");
  for (size_t i = 0; i < count; ++i) {
    const PJRT_NamedValue& v = values[i];
    const std::string name = v.name == nullptr ? std::string() : std::string(v.name, v.name_size);
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : option_specs()) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      invalid_argument("unknown PJRT_Client_Create option '" + name + "' (meshtest reads: " + known_client_options() +
                       ")");
    }
    if (v.type != spec->type) {
      invalid_argument("PJRT_Client_Create option '" + name + "' must be a " + std::string(type_name(spec->type)) +
                       ", got a " + std::string(type_name(v.type)) + " (meshtest reads: " + known_client_options() +
                       ")");
    }
    spec->apply(options, v);
  }
  return options;
}

}  // namespace meshtest::pjrt::plugin
