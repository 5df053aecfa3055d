// Whole-binary tests of the IR dumps: `run --serialize` writes one case
// folder per case named by the one rule (kCaseFolderRule), and a failing YAML
// `filechecks` pattern gives a one-line message while FileCheck's input and
// whole output are kept next to the IR dumps.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/cli_fixture.h"

namespace {

namespace fs = std::filesystem;

const std::string kId = "mnist/image_classification/native-mlp-single_device-inference";
const std::string kFolder = "mnist_image_classification_native-mlp-single_device-inference";

meshtest::testing::CommandResult run(const std::string& args) { return meshtest::testing::run_meshtest(args); }

class IrDumps : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir / "config"); }
  // A config whose only entry runs `pattern` (a file beside it) over the case's dumps.
  void write_filecheck_config(const std::string& pattern) {
    meshtest::testing::write_test_config(dir / "config" / "c.yaml",
                                         {{kId, {"status: EXPECTED_PASSING", "filechecks: [pattern.txt]"}}});
    std::ofstream(dir / "config" / "pattern.txt") << pattern;
  }
  const meshtest::testing::TestDir dir{"meshtest_irdump_"};
};

TEST_F(IrDumps, SerializeWritesOneCaseFolderNamedByTheRule) {
  const auto r = run("run --db '' --isolation none --serialize " + (dir / "ir").string() + " " + kId);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir / "ir" / kFolder / "00-frontend.mtir")) << r.output;
  EXPECT_FALSE(fs::exists(dir / "ir" / "mnist")) << "the id's '/' made a folder";
  EXPECT_NE(run("run --help").output.find("<case folder>: the test id with every character other than"),
            std::string::npos);
}

TEST_F(IrDumps, FilecheckFailureIsOneLineAndKeepsItsInputNextToTheDumps) {
  write_filecheck_config("// CHECK: stage: 00-frontend.mtir\n// CHECK: no_such_op_anywhere\n");
  const fs::path junit = dir / "junit.xml";
  const auto r = run("run --db '' --isolation none --config-dir " + (dir / "config").string() + " --serialize " +
                     (dir / "ir").string() + " --junitxml " + junit.string() + " " + kId);
  EXPECT_EQ(r.status, 1) << r.output;
  const std::string expected = "FileCheck pattern.txt failed: ";
  const size_t at = r.output.find(expected);
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
  EXPECT_NE(line.find("error: CHECK: expected string not found in input: // CHECK: no_such_op_anywhere"),
            std::string::npos)
      << line;
  const fs::path case_dir = dir / "ir" / kFolder;
  EXPECT_NE(line.find("(input " + (case_dir / "filecheck-input.mtir").string()), std::string::npos) << line;
  EXPECT_TRUE(fs::exists(case_dir / "filecheck-input.mtir"));
  EXPECT_TRUE(fs::exists(case_dir / "00-frontend.mtir"));
  const std::string full = meshtest::testing::read_text_file((case_dir / "filecheck-pattern.txt").string());
  EXPECT_NE(full.find("Input was:"), std::string::npos) << full;
  EXPECT_NE(full.find((case_dir / "filecheck-input.mtir").string()), std::string::npos) << "names the kept input";
  // FileCheck's input dump stays out of the console and the JUnit file.
  EXPECT_EQ(r.output.find("Input was:"), std::string::npos) << r.output;
  EXPECT_EQ(meshtest::testing::read_text_file(junit.string()).find("Input was:"), std::string::npos);
}

TEST_F(IrDumps, FilecheckWithoutSerializeKeepsItsFilesInTheTempDir) {
  write_filecheck_config("// CHECK: no_such_op_anywhere\n");
  const auto r = run("run --db '' --isolation none --config-dir " + (dir / "config").string() + " " + kId);
  EXPECT_EQ(r.status, 1) << r.output;
  const size_t at = r.output.find("(input ");
  ASSERT_NE(at, std::string::npos) << r.output;
  const std::string input = r.output.substr(at + 7, r.output.find(',', at) - at - 7);
  EXPECT_NE(input.find("meshtest-filecheck/" + kFolder + "/filecheck-input.mtir"), std::string::npos) << input;
  EXPECT_TRUE(fs::exists(input)) << input;
  EXPECT_TRUE(fs::exists(fs::path(input).parent_path() / "00-frontend.mtir")) << "the dumps are kept beside it";
}

}  // namespace
