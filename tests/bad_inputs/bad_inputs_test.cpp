// The bad-input catalogue as a table-driven test: every row of the table in
// docs/bad-inputs.md is one test, which runs tests/bad_inputs/cases/<id>.sh in
// a fresh folder (with $MESHTEST, $MESHTEST_OPT, $BAD_INPUTS (this folder), $MODELS — the fixture loaders
// bad/native and faults/native — and $FIXTURES, the broken plugins of
// tests/cli) and checks the row: the script's exit status equals the "exit"
// column and its output (the fresh folder written as <dir>) contains every
// `quoted` message of the last column. The fixture roots are written
// <models> and <fixtures>. A row without a script, or a script
// without a row, fails too. Every failure a row's script records in a results
// store must have a failure class (test_config/failure_reasons.yaml).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/run_command.h"

namespace {

namespace fs = std::filesystem;

struct Row {
  std::string id;
  int exit_status = 0;
  std::vector<std::string> messages;
};

void PrintTo(const Row& row, std::ostream* os) { *os << row.id; }

const fs::path kCases = fs::path(MESHTEST_SOURCE_DIR) / "tests/bad_inputs/cases";

// Cells of a markdown table line; "\|" inside a cell is a literal '|'.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      out.push_back(cell);
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return out;
}

// Every `code span` of a cell.
std::vector<std::string> code_spans(const std::string& cell) {
  std::vector<std::string> out;
  for (size_t at = cell.find('`'); at != std::string::npos;) {
    const size_t end = cell.find('`', at + 1);
    if (end == std::string::npos) break;
    out.push_back(cell.substr(at + 1, end - at - 1));
    at = cell.find('`', end + 1);
  }
  return out;
}

// The catalogue's rows: table lines whose first cell is a `case_id`.
std::vector<Row> catalogue() {
  const std::string doc = meshtest::testing::read_text_file(MESHTEST_SOURCE_DIR "/docs/bad-inputs.md");
  std::vector<Row> rows;
  std::istringstream in(doc);
  const std::regex id_cell(R"(\s*`([a-z0-9_]+)`\s*)");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    const std::vector<std::string> c = cells(line);
    std::smatch m;
    if (c.size() != 4 || !std::regex_match(c[0], m, id_cell)) {
      ADD_FAILURE() << "docs/bad-inputs.md: a row needs 4 cells (`id` | input | exit | `messages`): " << line;
      continue;
    }
    rows.push_back({m[1], std::stoi(c[2]), code_spans(c[3])});
  }
  return rows;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// "DB TEST_ID OUTCOME CLASS" for every failed, errored or xfailed result in
// the results stores (*.db) a case's script left in `dir`.
std::vector<std::string> failure_class_lines(const fs::path& dir) {
  std::string dbs;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".db") dbs += " '" + e.path().string() + "'";
  }
  if (dbs.empty()) return {};
  const meshtest::testing::CommandResult r =
      meshtest::testing::run_command("python3 " MESHTEST_SOURCE_DIR "/tests/bad_inputs/failure_classes.py" + dbs);
  std::vector<std::string> lines;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class BadInput : public ::testing::TestWithParam<Row> {};

TEST_P(BadInput, GivesTheCataloguedExitAndMessage) {
  const Row& row = GetParam();
  const fs::path script = kCases / (row.id + ".sh");
  ASSERT_TRUE(fs::exists(script)) << "no script " << script << " for the catalogue row " << row.id;
  ASSERT_FALSE(row.messages.empty()) << row.id << ": the row quotes no message";
  const fs::path dir = meshtest::testing::fresh_test_dir("meshtest_bad_input_", row.id);
  const std::string env = std::string("MESHTEST=") + MESHTEST_BINARY + " MESHTEST_OPT=" + MESHTEST_OPT_BINARY +
                          " BAD_INPUTS=" MESHTEST_SOURCE_DIR "/tests/bad_inputs MODELS=" + BAD_INPUT_MODELS + " FIXTURES=" + BAD_INPUT_FIXTURES +
                          " MESHTEST_CACHE_DIR=" + (dir / "cache").string() + " MESHTEST_CONFIG_DIR=" +
                          (dir / "no_config").string();
  const meshtest::testing::CommandResult r =
      meshtest::testing::run_command("cd " + dir.string() + " && " + env + " bash " + script.string());
  const std::string output = replace_all(replace_all(replace_all(r.output, dir.string(), "<dir>"), BAD_INPUT_MODELS,
                                                   "<models>"),
                                       BAD_INPUT_FIXTURES, "<fixtures>");
  EXPECT_EQ(r.status, row.exit_status) << row.id << " output:\n" << output;
  for (const std::string& message : row.messages) {
    EXPECT_NE(output.find(message), std::string::npos) << row.id << ": missing `" << message << "` in:\n" << output;
  }
  // Every failure the bad input recorded has a shipped class (test_config/failure_reasons.yaml).
  for (const std::string& line : failure_class_lines(dir)) {
    const bool classified = !line.ends_with(" <none>") && !line.ends_with(" UNCLASSIFIED");
    EXPECT_TRUE(classified) << row.id << ": a recorded failure without a class: " << line;
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, BadInput, ::testing::ValuesIn(catalogue()),
                         [](const ::testing::TestParamInfo<Row>& info) { return info.param.id; });

TEST(BadInputCatalogue, EveryScriptHasARowAndThereAreAtLeastForty) {
  std::set<std::string> ids;
  for (const Row& row : catalogue()) {
    EXPECT_TRUE(ids.insert(row.id).second) << "duplicate catalogue row " << row.id;
  }
  EXPECT_GE(ids.size(), 40u);
  for (const fs::directory_entry& e : fs::directory_iterator(kCases)) {
    const std::string id = e.path().stem().string();
    EXPECT_TRUE(ids.count(id)) << e.path() << " has no row in docs/bad-inputs.md";
  }
}

}  // namespace
