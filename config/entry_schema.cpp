// The table of test_config entry fields (see entry_schema.h).
#include "config/entry_schema.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "config/arch_names.h"
#include "config/marker_names.h"
#include "config/nearest_name.h"
#include "config/overrides.h"

namespace meshtest::config {

namespace {

// ---- show: value -> text ----
std::string text_of(double v) { return format_number(v); }
std::string text_of(bool v) { return v ? "true" : "false"; }
std::string text_of(int64_t v) { return std::to_string(v); }
std::string text_of(int v) { return std::to_string(v); }
std::string text_of(const std::string& v) { return v; }
std::string text_of(TestStatus v) { return std::string(status_name(v)); }
std::string text_of(BringupStatus v) { return std::string(bringup_name(v)); }
std::string text_of(const std::vector<std::string>& v) { return "[" + join_names(v) + "]"; }

template <class T>
std::optional<std::string> shown(const std::optional<T>& v) {
  return v ? std::optional<std::string>(text_of(*v)) : std::nullopt;
}
std::optional<std::string> shown(const std::vector<std::string>& v) {
  return v.empty() ? std::nullopt : std::optional<std::string>(text_of(v));
}
std::optional<std::string> shown(const std::string& v) {
  return v.empty() ? std::nullopt : std::optional<std::string>(v);
}
// Fields that always have a value (status, flaky) show it, set or not.
std::optional<std::string> shown(TestStatus v) { return text_of(v); }
std::optional<std::string> shown(bool v) { return text_of(v); }

// ---- readers: one per kind of value; the member they fill is a template argument ----
template <auto Member>
void copy_member(const TestEntry& from, TestEntry& to) {
  to.*Member = from.*Member;
}
template <auto Member>
std::optional<std::string> show_member(const TestEntry& e) {
  return shown(e.*Member);
}

// A number field's allowed range (a reference parameter: clang 14, which the
// fuzz build uses, has no floating-point template parameters).
struct NumberRange {
  double lo, hi;
};
constexpr NumberRange kUnitRange{0.0, 1.0};
constexpr NumberRange kNonNegative{0.0, HUGE_VAL};
constexpr NumberRange kSeconds{1e-3, HUGE_VAL};

template <auto Member, const NumberRange& Range>
void read_number(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  if (auto v = r.number(n, field, Range.lo, Range.hi)) e.*Member = *v;
}

template <auto Member, int64_t Lo, int64_t Hi>
void read_integer(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  if (auto v = r.integer(n, field, Lo, Hi)) e.*Member = static_cast<std::remove_reference_t<decltype(*(e.*Member))>>(*v);
}

template <auto Member>
void read_bool(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  if (auto v = r.boolean(n, field)) e.*Member = *v;
}

template <auto Member>
void read_string(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  if (auto v = r.string(n, field)) e.*Member = *v;
}

template <auto Member>
void read_strings(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  if (auto v = r.string_list(n, field)) e.*Member = *v;
}

void read_status(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  if (auto v = r.enumeration(n, field, parse_status, all_status_names())) e.status = *v;
}

void read_bringup(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  if (auto v = r.enumeration(n, field, parse_bringup, all_bringup_names())) e.bringup_status = *v;
}

// `text` as one of `names`, spelled as listed or in lower case.
std::optional<std::string> one_of(std::string_view text, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (text == name || text == lower) return std::string(name);
  }
  return std::nullopt;
}

std::optional<std::string> parse_execution_pass(std::string_view text) { return one_of(text, {"FORWARD", "BACKWARD"}); }

void read_execution_pass(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  if (auto v = r.enumeration(n, field, parse_execution_pass, {"FORWARD", "BACKWARD"})) e.execution_pass = *v;
}

// The names of compiler::MathFidelity (config does not depend on the compiler).
std::optional<std::string> parse_math_fidelity(std::string_view text) { return one_of(text, {"LoFi", "HiFi2", "HiFi3", "HiFi4"}); }

void read_math_fidelity(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  if (auto v = r.enumeration(n, field, parse_math_fidelity, {"LoFi", "HiFi2", "HiFi3", "HiFi4"})) e.math_fidelity = *v;
}

void read_markers(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  const std::optional<std::vector<std::string>> names = r.string_list(n, field);
  if (!names) return;
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& m = (*names)[i];
    if (auto problem = marker_name_problem(m)) {
      r.error(n.kind == YamlNode::Kind::Sequence ? n.children[i] : n, "marker '" + m + "' " + *problem);
    }
  }
  e.markers = *names;
}

void read_archs(ValueReader& r, const YamlNode& n, TestEntry& e, std::string_view field) {
  const std::optional<std::vector<std::string>> names = r.string_list(n, field);
  if (!names) return;
  for (size_t i = 0; i < names->size(); ++i) {
    if (auto problem = unknown_arch_message((*names)[i])) {
      r.error(n.kind == YamlNode::Kind::Sequence ? n.children[i] : n, *problem);
    }
  }
  e.supported_archs = *names;
}

// Adapts a reader that needs the field name to FieldSpec::read.
#define MESHTEST_FIELD(name, reader, member)                                                        \
  FieldSpec {                                                                                       \
    name, [](ValueReader& r, const YamlNode& n, TestEntry& e) { reader(r, n, e, name); },           \
        copy_member<&TestEntry::member>, show_member<&TestEntry::member>                            \
  }

}  // namespace

const std::vector<FieldSpec>& entry_fields() {
  static const std::vector<FieldSpec> fields = {
      MESHTEST_FIELD("status", read_status, status),
      MESHTEST_FIELD("reason", read_string<&TestEntry::reason>, reason),
      MESHTEST_FIELD("bringup_status", read_bringup, bringup_status),
      MESHTEST_FIELD("required_pcc", (read_number<&TestEntry::required_pcc, kUnitRange>), required_pcc),
      MESHTEST_FIELD("assert_pcc", read_bool<&TestEntry::assert_pcc>, assert_pcc),
      MESHTEST_FIELD("required_atol", (read_number<&TestEntry::required_atol, kNonNegative>), required_atol),
      MESHTEST_FIELD("assert_atol", read_bool<&TestEntry::assert_atol>, assert_atol),
      MESHTEST_FIELD("assert_allclose", read_bool<&TestEntry::assert_allclose>, assert_allclose),
      MESHTEST_FIELD("allclose_rtol", (read_number<&TestEntry::allclose_rtol, kNonNegative>), allclose_rtol),
      MESHTEST_FIELD("allclose_atol", (read_number<&TestEntry::allclose_atol, kNonNegative>), allclose_atol),
      MESHTEST_FIELD("assert_scale", read_bool<&TestEntry::assert_scale>, assert_scale),
      MESHTEST_FIELD("scale_tolerance", (read_number<&TestEntry::scale_tolerance, kNonNegative>), scale_tolerance),
      MESHTEST_FIELD("op_golden", read_bool<&TestEntry::op_golden>, op_golden),
      MESHTEST_FIELD("op_required_pcc", (read_number<&TestEntry::op_required_pcc, kUnitRange>), op_required_pcc),
      MESHTEST_FIELD("op_scale_tolerance", (read_number<&TestEntry::op_scale_tolerance, kNonNegative>),
                     op_scale_tolerance),
      MESHTEST_FIELD("op_max_ulp", (read_number<&TestEntry::op_max_ulp, kNonNegative>), op_max_ulp),
      MESHTEST_FIELD("autodiff_check", read_bool<&TestEntry::autodiff_check>, autodiff_check),
      MESHTEST_FIELD("autodiff_rel_l2", (read_number<&TestEntry::autodiff_rel_l2, kNonNegative>), autodiff_rel_l2),
      MESHTEST_FIELD("markers", read_markers, markers),
      MESHTEST_FIELD("supported_archs", read_archs, supported_archs),
      MESHTEST_FIELD("batch_size", (read_integer<&TestEntry::batch_size, 1, INT64_MAX>), batch_size),
      MESHTEST_FIELD("seq_len", (read_integer<&TestEntry::seq_len, 1, INT64_MAX>), seq_len),
      MESHTEST_FIELD("optimization_level", (read_integer<&TestEntry::optimization_level, 0, 2>), optimization_level),
      MESHTEST_FIELD("enable_weight_bfp8_conversion", read_bool<&TestEntry::enable_weight_bfp8_conversion>,
                     enable_weight_bfp8_conversion),
      MESHTEST_FIELD("math_fidelity", read_math_fidelity, math_fidelity),
      MESHTEST_FIELD("execution_pass", read_execution_pass, execution_pass),
      MESHTEST_FIELD("filechecks", read_strings<&TestEntry::filechecks>, filechecks),
      MESHTEST_FIELD("timeout", (read_number<&TestEntry::timeout_seconds, kSeconds>), timeout_seconds),
      MESHTEST_FIELD("flaky", read_bool<&TestEntry::flaky>, flaky),
      MESHTEST_FIELD("codegen_assert_exact", read_bool<&TestEntry::codegen_assert_exact>, codegen_assert_exact),
      // The other runners' name for codegen_assert_exact (shown under that name).
      FieldSpec{"emitpy_assert_exact",
                [](ValueReader& r, const YamlNode& n, TestEntry& e) {
                  read_bool<&TestEntry::codegen_assert_exact>(r, n, e, "emitpy_assert_exact");
                },
                copy_member<&TestEntry::codegen_assert_exact>, [](const TestEntry&) -> std::optional<std::string> {
                  return std::nullopt;
                }},
  };
  return fields;
}

const FieldSpec* find_field(std::string_view name) {
  for (const FieldSpec& f : entry_fields()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

const std::vector<std::string>& entry_field_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const FieldSpec& f : entry_fields()) out.emplace_back(f.name);
    for (const OverrideKind& kind : override_kinds()) out.emplace_back(kind.field);
    return out;
  }();
  return names;
}

bool is_foreign_field(std::string_view name) { return name == "inject_custom_moe"; }

}  // namespace meshtest::config
