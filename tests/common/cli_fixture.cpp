// The whole-binary tests' shared fixture (see cli_fixture.h).
#include "tests/common/cli_fixture.h"

#include <gtest/gtest.h>

#include <fstream>

namespace meshtest::testing {

CommandResult run_meshtest(const std::string& args, const std::string& env) {
  return run_command(env + " " + MESHTEST_BINARY + " " + args);
}

TestDir::TestDir(const std::string& prefix)
    : std::filesystem::path(
          fresh_test_dir(prefix, ::testing::UnitTest::GetInstance()->current_test_info()->name())) {}

TestDir::~TestDir() {
  std::error_code ignored;  // a test that fails half-way may leave it in any state
  std::filesystem::remove_all(*this, ignored);
}

void write_test_config(const std::filesystem::path& file, const std::vector<ConfigEntry>& entries) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file);
  out << "test_config:\n";
  for (const ConfigEntry& e : entries) {
    out << "  " << e.id << ":\n";
    for (const std::string& field : e.fields) out << "    " << field << "\n";
  }
}

void pg_server(const std::string& action, const std::filesystem::path& state) {
  run_command(std::string(MESHTEST_SOURCE_DIR) + "/tests/reports/pg_server.sh " + action + " " + state.string());
}

std::string start_pg_server(const std::filesystem::path& state) {
  pg_server("start", state);
  std::string url = read_text_file(state.string());
  while (!url.empty() && url.back() == '\n') url.pop_back();
  return url;
}

}  // namespace meshtest::testing
