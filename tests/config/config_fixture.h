// A temporary test_config folder per test: write files, load them, read the
// diagnostics back as the exact lines the CLI prints.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/test_config.h"

namespace meshtest::config {

class ConfigDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = std::filesystem::temp_directory_path() /
          ("meshtest_config_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  TestConfig load() { return load_test_config(dir.string(), diags); }
  // Every diagnostic as printed: "file:line:column: message".
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    for (const Diagnostic& d : diags) out.push_back(d.to_string());
    return out;
  }
  // The one diagnostic a test expects, as printed.
  std::string only_line() const {
    EXPECT_EQ(diags.size(), 1u) << ::testing::PrintToString(lines());
    return diags.empty() ? "" : diags[0].to_string();
  }

  std::filesystem::path dir;
  std::vector<Diagnostic> diags;
};

}  // namespace meshtest::config
