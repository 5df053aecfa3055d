// Attribute schemas of op definitions: building specs, reading attributes with
// their schema defaults, and the generic validation every op goes through.
#include "core/op_def.h"

#include <stdexcept>

#include "core/error.h"

namespace meshtest {

namespace {

AttrSpec spec(std::string_view name, AttrKind kind, bool required, std::optional<AttrValue> fallback = std::nullopt) {
  return AttrSpec{name, kind, required, std::move(fallback), {}};
}

// The wording Attrs' typed getters use, so messages stay as they were.
const char* kind_phrase(AttrKind kind) {
  switch (kind) {
    case AttrKind::Int: return "an integer";
    case AttrKind::IntList: return "a list of integers";
    case AttrKind::Float: return "a number";
    case AttrKind::String:
    case AttrKind::Enum: return "a string";
  }
  return "a value";
}

bool holds_kind(const AttrValue& value, AttrKind kind) {
  switch (kind) {
    case AttrKind::Int: return std::holds_alternative<int64_t>(value);
    case AttrKind::IntList: return std::holds_alternative<std::vector<int64_t>>(value);
    case AttrKind::Float: return std::holds_alternative<double>(value) || std::holds_alternative<int64_t>(value);
    case AttrKind::String:
    case AttrKind::Enum: return std::holds_alternative<std::string>(value);
  }
  return false;
}

std::string quoted_list(const std::vector<std::string_view>& names, const char* quote) {
  std::string s;
  for (std::string_view n : names) s += (s.empty() ? "" : ", ") + std::string(quote) + std::string(n) + quote;
  return s;
}

void check_value(const AttrSpec& spec, const AttrValue& value) {
  if (!holds_kind(value, spec.kind)) {
    throw CompileError("attribute '" + std::string(spec.name) + "' must be " + kind_phrase(spec.kind));
  }
  if (spec.kind != AttrKind::Enum) return;
  const std::string& text = std::get<std::string>(value);
  for (std::string_view allowed : spec.allowed) {
    if (allowed == text) return;
  }
  throw CompileError("attribute '" + std::string(spec.name) + "' must be one of " + quoted_list(spec.allowed, "\"") +
                     ", got \"" + text + "\"");
}

bool is_discardable(const std::string& name) { return name.find('.') != std::string::npos; }

// How many required attributes each op's schema lists, by OpKind (counted
// once: validation runs for every op on every verification).
size_t required_count(const OpDef& def) {
  static const std::vector<size_t> counts = [] {
    std::vector<size_t> c;
    for (const OpDef& d : op_defs()) {
      size_t n = 0;
      for (const AttrSpec& a : d.attrs) n += a.required ? 1 : 0;
      c.push_back(n);
    }
    return c;
  }();
  return counts[static_cast<size_t>(def.kind)];
}

}  // namespace

AttrSpec required_int(std::string_view name) { return spec(name, AttrKind::Int, true); }
AttrSpec optional_int(std::string_view name, int64_t fallback) { return spec(name, AttrKind::Int, false, fallback); }
AttrSpec optional_int(std::string_view name) { return spec(name, AttrKind::Int, false); }
AttrSpec required_ints(std::string_view name) { return spec(name, AttrKind::IntList, true); }
AttrSpec optional_ints(std::string_view name, std::vector<int64_t> fallback) {
  return spec(name, AttrKind::IntList, false, std::move(fallback));
}
AttrSpec required_float(std::string_view name) { return spec(name, AttrKind::Float, true); }
AttrSpec optional_float(std::string_view name, double fallback) { return spec(name, AttrKind::Float, false, fallback); }
AttrSpec required_string(std::string_view name) { return spec(name, AttrKind::String, true); }
AttrSpec optional_string(std::string_view name, std::string fallback) {
  return spec(name, AttrKind::String, false, std::move(fallback));
}
AttrSpec optional_enum(std::string_view name, std::initializer_list<std::string_view> allowed,
                       std::string_view fallback) {
  AttrSpec s = spec(name, AttrKind::Enum, false, std::string(fallback));
  s.allowed = allowed;
  return s;
}

AttrSpec required_enum(std::string_view name, std::initializer_list<std::string_view> allowed) {
  AttrSpec s = spec(name, AttrKind::Enum, true);
  s.allowed = allowed;
  return s;
}

const AttrSpec* OpDef::find_attr(std::string_view attr_name) const {
  for (const AttrSpec& a : attrs) {
    if (a.name == attr_name) return &a;
  }
  return nullptr;
}

void validate_attrs(const OpDef& def, const Attrs& attrs) {
  size_t required_seen = 0;
  for (const auto& [name, value] : attrs.values()) {
    const AttrSpec* s = def.find_attr(name);
    if (s == nullptr) {
      if (is_discardable(name)) continue;
      std::vector<std::string_view> known;
      for (const AttrSpec& a : def.attrs) known.push_back(a.name);
      throw CompileError("unknown attribute '" + name + "' (" + std::string(def.name) + " takes " +
                         (known.empty() ? std::string("none") : quoted_list(known, "'")) + ")");
    }
    check_value(*s, value);
    if (s->required) ++required_seen;
  }
  if (required_seen == required_count(def)) return;
  for (const AttrSpec& a : def.attrs) {
    if (a.required && !attrs.has(std::string(a.name))) {
      throw CompileError("missing attribute '" + std::string(a.name) + "'");
    }
  }
}

const AttrValue& OpAttrs::fallback(const std::string& name) const {
  const AttrSpec* s = def_.find_attr(name);
  if (s == nullptr || !s->default_value) {
    throw std::logic_error(std::string(def_.name) + " reads attribute '" + name +
                           "' that its schema neither lists nor gives a default");
  }
  return *s->default_value;
}

int64_t OpAttrs::get_int(const std::string& name) const {
  return attrs_.has(name) ? attrs_.get_int(name) : std::get<int64_t>(fallback(name));
}

double OpAttrs::get_float(const std::string& name) const {
  return attrs_.has(name) ? attrs_.get_float(name) : std::get<double>(fallback(name));
}

std::string OpAttrs::get_string(const std::string& name) const {
  return attrs_.has(name) ? attrs_.get_string(name) : std::get<std::string>(fallback(name));
}

std::vector<int64_t> OpAttrs::get_ints(const std::string& name) const {
  return attrs_.has(name) ? attrs_.get_ints(name) : std::get<std::vector<int64_t>>(fallback(name));
}

}  // namespace meshtest
