// Rows of an SQL statement on an SQLite results store, for the whole-binary
// tests that check what a run recorded.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace meshtest::testing {

// Each row's cells as text ("" for NULL), joined by '|'; none when `db` does
// not exist. Waits up to 10 s for a writer's lock.
std::vector<std::string> query_rows(const std::filesystem::path& db, const std::string& sql);

}  // namespace meshtest::testing
