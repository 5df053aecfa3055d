// The type-dependent parts of the record codecs: one field value to and from
// JSON and SQL, and the SQL type of each field type.
#include "reports/record_schema.h"

#include "reports/result_rows.h"

namespace meshtest::reports {

namespace {

std::vector<std::string> integers_as_text(const std::vector<int64_t>& values) {
  std::vector<std::string> items;
  for (int64_t v : values) items.push_back(std::to_string(v));
  return items;
}

}  // namespace

nlohmann::json field_to_json(const FieldValue& value) {
  if (const double* real = std::get_if<double>(&value)) {
    return std::isfinite(*real) ? nlohmann::json(*real) : nlohmann::json(nullptr);
  }
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

std::optional<FieldValue> field_from_json(FieldType type, const nlohmann::json& json) {
  switch (type) {
    case FieldType::Text:
      if (json.is_string()) return json.get<std::string>();
      break;
    case FieldType::Real:
      if (json.is_number()) return json.get<double>();
      break;
    case FieldType::Integer:
      if (json.is_number_integer()) return json.get<int64_t>();
      break;
    case FieldType::Flag:
      if (json.is_boolean()) return json.get<bool>();
      break;
    case FieldType::TextList:
      if (json.is_array()) return json.get<std::vector<std::string>>();
      break;
    case FieldType::IntegerList:
      if (json.is_array()) return json.get<std::vector<int64_t>>();
      break;
  }
  return std::nullopt;
}

SqlValue field_to_sql(const FieldValue& value) {
  switch (static_cast<FieldType>(value.index())) {
    case FieldType::Text: return std::get<std::string>(value);
    case FieldType::Real: return std::get<double>(value);
    case FieldType::Integer: return std::get<int64_t>(value);
    case FieldType::Flag: return static_cast<int64_t>(std::get<bool>(value));
    case FieldType::TextList: return join_list(std::get<std::vector<std::string>>(value));
    case FieldType::IntegerList: return join_list(integers_as_text(std::get<std::vector<int64_t>>(value)));
  }
  return nullptr;
}

std::optional<FieldValue> field_from_sql(FieldType type, const SqlRow& row, size_t cell) {
  if (row.is_null(cell)) return std::nullopt;
  switch (type) {
    case FieldType::Text: return row.text(cell);
    case FieldType::Real: return row.real(cell);
    case FieldType::Integer: return row.integer(cell);
    case FieldType::Flag: return row.integer(cell) != 0;
    case FieldType::TextList: return split_list(row.text(cell));
    case FieldType::IntegerList: {
      std::vector<int64_t> values;
      for (const std::string& item : split_list(row.text(cell))) values.push_back(std::stoll(item));
      return values;
    }
  }
  return std::nullopt;
}

std::string_view sql_type(FieldType type) {
  switch (type) {
    case FieldType::Real: return "REAL";
    case FieldType::Integer:
    case FieldType::Flag: return "INTEGER";
    case FieldType::Text:
    case FieldType::TextList:
    case FieldType::IntegerList: return "TEXT";
  }
  return "TEXT";
}

}  // namespace meshtest::reports
