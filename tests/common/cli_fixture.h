// The fixture of the whole-binary tests, in one place: run the `meshtest`
// binary under test (stdout and stderr together), a fresh folder per test
// that is gone after it, test_config YAML written into it, and a private
// PostgreSQL server for the tests that need one. Link
// meshtest_cli_test_support (tests/common/CMakeLists.txt); it also defines
// MESHTEST_BINARY for commands built around the binary (script, background).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tests/common/run_command.h"

namespace meshtest::testing {

// `env` (VAR=value ..., may be empty) then the meshtest binary with `args`.
CommandResult run_meshtest(const std::string& args, const std::string& env = "");

// The folder of the running test: <temp>/<prefix><pid>_<test name>, emptied
// when made and removed when it goes; a path, so `dir / "x"` works. Make it a
// member of the fixture: it is made before SetUp and removed after TearDown.
class TestDir : public std::filesystem::path {
 public:
  explicit TestDir(const std::string& prefix);
  ~TestDir();
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;
};

// One test_config entry: a test id and its fields, one "key: value" each.
struct ConfigEntry {
  std::string id;
  std::vector<std::string> fields;
};

// Writes `entries` as a test_config file at `file` (its folder made if missing).
void write_test_config(const std::filesystem::path& file, const std::vector<ConfigEntry>& entries);

// A private PostgreSQL server for one test (tests/reports/pg_server.sh), its
// state in the file `state`: `action` is stop, crash (at once) or restart.
void pg_server(const std::string& action, const std::filesystem::path& state);
// Starts one: its URL, or "skip: <reason>" where PostgreSQL is not installed.
std::string start_pg_server(const std::filesystem::path& state);

}  // namespace meshtest::testing
