// docs/reference/test-config.md against the test_config schema: every field
// its tables list (tables whose first column is headed `field`) must be one
// the schema reads (config/entry_schema.h), and every field the schema reads
// must be listed, so the reference cannot drift from the code.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "config/entry_schema.h"

namespace {

const char* const kPage = MESHTEST_SOURCE_DIR "/docs/reference/test-config.md";

std::string read_page() {
  std::ifstream in(kPage);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trimmed(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  const size_t last = s.find_last_not_of(" \t");
  return std::string(s.substr(first, last - first + 1));
}

// The first cell of a table row ("| `status` | ..." -> "status"), backticks dropped.
std::string first_cell(std::string_view row) {
  const size_t open = row.find('|');
  const size_t close = row.find('|', open + 1);
  std::string cell = trimmed(row.substr(open + 1, close == std::string_view::npos ? row.npos : close - open - 1));
  std::erase(cell, '`');
  return cell;
}

bool is_table_row(std::string_view line) { return trimmed(line).starts_with("|"); }

// The first-column names of every table headed `field`, in page order (repeats kept).
std::vector<std::string> documented_fields(const std::string& markdown) {
  std::vector<std::string> names;
  std::istringstream lines(markdown);
  std::string line;
  bool in_field_table = false;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (!is_table_row(line)) {
      in_table = in_field_table = false;
      continue;
    }
    if (!in_table) {  // a header row
      in_table = true;
      in_field_table = first_cell(line) == "field";
      if (in_field_table) std::getline(lines, line);  // the |---|---| line under it
      continue;
    }
    if (in_field_table) names.push_back(first_cell(line));
  }
  return names;
}

std::set<std::string> schema_fields() {
  const std::vector<std::string>& names = meshtest::config::entry_field_names();
  return {names.begin(), names.end()};
}

TEST(YamlFieldsReference, ParsesTheFieldTableOfASamplePage) {
  const std::string page =
      "# x\n\n| key | holds |\n|---|---|\n| `test_config` | entries |\n\n"
      "| field | type |\n|---|---|\n| `status` | enum |\n| `reason` | string |\ntext\n";
  EXPECT_EQ(documented_fields(page), (std::vector<std::string>{"status", "reason"}));
}

TEST(YamlFieldsReference, EveryDocumentedFieldIsInTheSchema) {
  const std::vector<std::string> documented = documented_fields(read_page());
  ASSERT_FALSE(documented.empty()) << kPage << " has no table whose first column is headed `field`";
  const std::set<std::string> schema = schema_fields();
  std::set<std::string> seen;
  for (const std::string& name : documented) {
    EXPECT_TRUE(schema.count(name)) << "docs/reference/test-config.md documents '" << name
                                    << "', which the test_config schema (config/entry_schema.cpp) does not read";
    EXPECT_TRUE(seen.insert(name).second) << "docs/reference/test-config.md lists '" << name << "' twice";
  }
}

TEST(YamlFieldsReference, EverySchemaFieldIsDocumented) {
  const std::vector<std::string> listed = documented_fields(read_page());
  const std::set<std::string> documented(listed.begin(), listed.end());
  for (const std::string& name : schema_fields()) {
    EXPECT_TRUE(documented.count(name)) << "the test_config field '" << name
                                        << "' (config/entry_schema.cpp) has no row in docs/reference/test-config.md";
  }
}

}  // namespace
