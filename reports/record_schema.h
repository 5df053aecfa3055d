// A record described once: each field's JSON key, SQL column, type, the store
// schema version that added its column, and how to read and write it. The
// JSON and SQL codecs below and the store migrations (store_schema.cpp) are
// derived from these descriptions, so a field added to a record and to its
// table (reports/record_fields.cpp) reaches every report, the worker protocol
// and both stores with nothing else to edit.
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "reports/sql_database.h"

namespace meshtest::reports {

// The value of one field, by type; FieldType names the alternatives in order.
using FieldValue = std::variant<std::string, double, int64_t, bool, std::vector<std::string>, std::vector<int64_t>>;
enum class FieldType { Text, Real, Integer, Flag, TextList, IntegerList };

template <class Record>
struct Field {
  std::string_view name;            // JSON key
  std::string_view column;          // SQL column; "" when the field is not stored in its record's table
  std::string_view group;           // JSON object the key sits in ("seconds"); "" at the top level
  FieldType type = FieldType::Text;
  int since_schema = 1;             // the store schema version whose migration added the column
  bool in_json = true;              // false: stored, never sent as JSON (say why where it is declared)
  bool not_null = false;            // SQL NOT NULL
  bool key = false;                 // part of the table's primary key ...
  int key_since = 1;                // ... from this schema version on (a later one rebuilds the table)
  FieldValue (*get)(const Record&) = nullptr;
  void (*set)(Record&, FieldValue) = nullptr;

  Field stored_as(std::string_view c) const { Field f = *this; f.column = c; return f; }
  Field in_group(std::string_view g) const { Field f = *this; f.group = g; return f; }
  Field since(int version) const { Field f = *this; f.since_schema = version; return f; }
  Field not_in_json() const { Field f = *this; f.in_json = false; return f; }
  Field required() const { Field f = *this; f.not_null = true; return f; }
  Field primary_key() const { Field f = *this; f.key = true; f.not_null = true; return f; }
  // A column that joins the primary key at `version` (that migration rebuilds the table).
  Field primary_key_since(int version) const { Field f = primary_key(); f.key_since = version; return f; }
};

namespace field_detail {

template <class T>
constexpr FieldType type_of() {
  if constexpr (std::is_same_v<T, std::string>) return FieldType::Text;
  else if constexpr (std::is_same_v<T, bool>) return FieldType::Flag;
  else if constexpr (std::is_floating_point_v<T>) return FieldType::Real;
  else if constexpr (std::is_integral_v<T>) return FieldType::Integer;
  else if constexpr (std::is_same_v<T, std::vector<std::string>>) return FieldType::TextList;
  else {
    static_assert(std::is_same_v<T, std::vector<int64_t>>, "a field type FieldValue does not hold");
    return FieldType::IntegerList;
  }
}

template <class T>
FieldValue to_value(const T& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return static_cast<int64_t>(v);
  else return v;
}

template <class T>
T from_value(FieldValue&& v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return static_cast<T>(std::get<int64_t>(v));
  else return std::get<T>(std::move(v));
}

template <class M>
struct Member;
template <class R, class T>
struct Member<T R::*> {
  using Record = R;
  using Type = T;
};

}  // namespace field_detail

// A field stored in member `M` of its record, e.g. field<&CaseResult::model>("model").
template <auto M>
auto field(std::string_view name) {
  using Traits = field_detail::Member<decltype(M)>;
  using R = typename Traits::Record;
  using T = typename Traits::Type;
  Field<R> f;
  f.name = f.column = name;
  f.type = field_detail::type_of<T>();
  f.get = [](const R& r) { return field_detail::to_value<T>(r.*M); };
  f.set = [](R& r, FieldValue v) { r.*M = field_detail::from_value<T>(std::move(v)); };
  return f;
}

// A field in member `Inner` of the record's member `Outer` (the phase seconds).
template <auto Outer, auto Inner>
auto nested_field(std::string_view name) {
  using R = typename field_detail::Member<decltype(Outer)>::Record;
  using T = typename field_detail::Member<decltype(Inner)>::Type;
  Field<R> f;
  f.name = f.column = name;
  f.type = field_detail::type_of<T>();
  f.get = [](const R& r) { return field_detail::to_value<T>((r.*Outer).*Inner); };
  f.set = [](R& r, FieldValue v) { (r.*Outer).*Inner = field_detail::from_value<T>(std::move(v)); };
  return f;
}

// An enum member written as its name: `Name` maps a value to its name, `Parse` back.
template <auto M, auto Name, auto Parse>
auto named_field(std::string_view name) {
  using R = typename field_detail::Member<decltype(M)>::Record;
  Field<R> f;
  f.name = f.column = name;
  f.type = FieldType::Text;
  f.get = [](const R& r) -> FieldValue { return std::string(Name(r.*M)); };
  f.set = [](R& r, FieldValue v) { r.*M = Parse(std::get<std::string>(v)); };
  return f;
}

// ---- JSON ----

nlohmann::json field_to_json(const FieldValue& value);  // NaN -> null
// The value of `json` as a field of `type`; nullopt when null or of another kind.
std::optional<FieldValue> field_from_json(FieldType type, const nlohmann::json& json);

template <class R>
nlohmann::json record_to_json(const std::vector<Field<R>>& fields, const R& record) {
  nlohmann::json out = nlohmann::json::object();
  for (const Field<R>& f : fields) {
    if (!f.in_json) continue;
    nlohmann::json& parent = f.group.empty() ? out : out[std::string(f.group)];
    parent[std::string(f.name)] = field_to_json(f.get(record));
  }
  return out;
}

// Sets the fields present in `json`; absent or null ones keep the record's defaults.
template <class R>
void record_from_json(const std::vector<Field<R>>& fields, const nlohmann::json& json, R& record) {
  for (const Field<R>& f : fields) {
    if (!f.in_json) continue;
    const nlohmann::json* parent = &json;
    if (!f.group.empty()) {
      auto group = json.find(std::string(f.group));
      if (group == json.end() || !group->is_object()) continue;
      parent = &*group;
    }
    auto it = parent->find(std::string(f.name));
    if (it == parent->end()) continue;
    if (auto value = field_from_json(f.type, *it)) f.set(record, std::move(*value));
  }
}

// ---- SQL ----

SqlValue field_to_sql(const FieldValue& value);
// The cell as a field of `type`; nullopt when NULL.
std::optional<FieldValue> field_from_sql(FieldType type, const SqlRow& row, size_t cell);
std::string_view sql_type(FieldType type);  // SQLite's spelling: TEXT, REAL, INTEGER

template <class R>
std::vector<std::string> column_names(const std::vector<Field<R>>& fields) {
  std::vector<std::string> out;
  for (const Field<R>& f : fields) {
    if (!f.column.empty()) out.emplace_back(f.column);
  }
  return out;
}

template <class R>
void append_sql_values(const std::vector<Field<R>>& fields, const R& record, std::vector<SqlValue>& out) {
  for (const Field<R>& f : fields) {
    if (!f.column.empty()) out.push_back(field_to_sql(f.get(record)));
  }
}

// Reads the columns of column_names(fields) from cell `first` on; NULL cells keep the defaults.
template <class R>
void record_from_sql(const std::vector<Field<R>>& fields, const SqlRow& row, size_t first, R& record) {
  size_t cell = first;
  for (const Field<R>& f : fields) {
    if (f.column.empty()) continue;
    if (auto value = field_from_sql(f.type, row, cell)) f.set(record, std::move(*value));
    ++cell;
  }
}

// "name TYPE [NOT NULL]" for every column added by schema version `version`
// (or by any version up to it, when `up_to` is set).
template <class R>
std::vector<std::string> column_definitions(const std::vector<Field<R>>& fields, int version, bool up_to) {
  std::vector<std::string> out;
  for (const Field<R>& f : fields) {
    if (f.column.empty() || (up_to ? f.since_schema > version : f.since_schema != version)) continue;
    const bool not_null = f.not_null && (!f.key || f.key_since <= version);  // a later key column: NULL before
    out.push_back(std::string(f.column) + " " + std::string(sql_type(f.type)) + (not_null ? " NOT NULL" : ""));
  }
  return out;
}

template <class R>
bool is_key_at(const Field<R>& f, int version) {
  return f.key && f.since_schema <= version && f.key_since <= version;
}

// The primary key's columns as of schema version `version` (default: the latest).
template <class R>
std::vector<std::string> key_columns(const std::vector<Field<R>>& fields, int version = INT_MAX) {
  std::vector<std::string> out;
  for (const Field<R>& f : fields) {
    if (is_key_at(f, version)) out.emplace_back(f.column);
  }
  return out;
}

// "name TYPE NOT NULL" of each primary key column as of `version` (an owned table's owner columns).
template <class R>
std::vector<std::string> key_column_definitions(const std::vector<Field<R>>& fields, int version) {
  std::vector<std::string> out;
  for (const Field<R>& f : fields) {
    if (is_key_at(f, version)) out.push_back(std::string(f.column) + " " + std::string(sql_type(f.type)) + " NOT NULL");
  }
  return out;
}

template <class R>
int latest_field_version(const std::vector<Field<R>>& fields) {
  int latest = 1;
  for (const Field<R>& f : fields) latest = std::max({latest, f.since_schema, f.key_since});
  return latest;
}

}  // namespace meshtest::reports
