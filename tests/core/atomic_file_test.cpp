// Atomic file writes (core/atomic_file.h): the target is replaced whole or
// not at all, and no temporary file is left behind either way.
#include "core/atomic_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>

#include "core/error.h"
#include "tests/common/run_command.h"

namespace meshtest {
namespace {

namespace fs = std::filesystem;

size_t files_in(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const fs::directory_entry& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, ReplacesTheTargetWholeOrNotAtAll) {
  const fs::path dir = testing::fresh_test_dir("meshtest_atomic_", "replace");
  const std::string target = (dir / "report.html").string();
  write_file_atomically(target, "first\n", "the report");
  write_file_atomically(target, "second\n", "the report");
  EXPECT_EQ(testing::read_text_file(target), "second\n");
  EXPECT_THROW(write_file_atomically(
                   target, [](std::ostream& out) { out << "half"; throw std::runtime_error("writer died"); }, "the report"),
               std::runtime_error);
  EXPECT_EQ(testing::read_text_file(target), "second\n");
  EXPECT_EQ(files_in(dir), 1u);  // no temporary file left
  fs::remove_all(dir);
}

TEST(AtomicFile, AMissingFolderIsAnErrorNamingWhatAndWhere) {
  const fs::path dir = testing::fresh_test_dir("meshtest_atomic_", "missing");
  const std::string target = (dir / "no" / "j.xml").string();
  EXPECT_THAT([&] { write_file_atomically(target, "x", "JUnit XML"); },
              ::testing::ThrowsMessage<Error>(
                  ::testing::StrEq("cannot write JUnit XML to '" + target + "': No such file or directory")));
  EXPECT_EQ(files_in(dir), 0u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace meshtest
