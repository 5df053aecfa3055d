// Whole-binary tests of the reports that need no dashboard (issue 30):
// `report --unlisted/--stale/--placeholders` (coverage gaps from discovery),
// `changed --base REF` and `run/collect --changed REF` in a throwaway git
// repository, and `report --format csv|md` of a stored run. The models are
// two StableHLO programs (declarative loaders: ops/add and ops/mul).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/cli_fixture.h"

namespace meshtest::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAdd = "ops/add-single_device-inference";
constexpr const char* kMul = "ops/mul-single_device-inference";

void write_program(const fs::path& file, const std::string& op) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                      << "  %0 = stablehlo." << op << " %a, %a : tensor<4xf32>\n"
                      << "  return %0 : tensor<4xf32>\n}\n";
}

class ReportTools : public ::testing::Test {
 protected:
  TestDir dir{"meshtest_report_tools_"};
  fs::path models() const { return dir / "repo" / "models"; }
  fs::path config() const { return dir / "repo" / "test_config"; }
  std::string roots() const { return " --models-root " + models().string() + " --config-dir " + config().string(); }

  void SetUp() override {
    write_program(models() / "ops" / "add.mlir", "add");
    write_program(models() / "ops" / "mul.mlir", "multiply");
    write_test_config(config() / "ops.yaml", {{kAdd, {"status: EXPECTED_PASSING"}},
                                               {kMul, {"status: EXPECTED_PASSING", "required_pcc: 0.99"}},
                                               {"ops/gone-single_device-inference", {"status: EXPECTED_PASSING"}}});
    std::ofstream(config() / "placeholders.yaml") << "PLACEHOLDER_MODELS:\n"
                                                     "  Big/Model-A:\n    reason: later\n"
                                                     "  Big/Model-B:\n    bringup_status: FAILED_RUNTIME\n";
  }

  // git in the repository folder, with an identity of its own.
  CommandResult git(const std::string& args) const {
    return run_command("git -C " + (dir / "repo").string() +
                       " -c user.name=meshtest -c user.email=meshtest@example.com " + args);
  }
  void commit(const std::string& message) const {
    ASSERT_EQ(git("add -A").status, 0);
    const CommandResult r = git("commit -q -m '" + message + "'");
    ASSERT_EQ(r.status, 0) << r.output;
  }
  void init_repository() const {
    const CommandResult r = git("init -q");
    ASSERT_EQ(r.status, 0) << r.output;
    commit("initial");
  }
  // Rewrites ops.yaml with `mul_fields` for the mul entry (the others as in SetUp).
  void rewrite_mul(const std::vector<std::string>& mul_fields) const {
    write_test_config(config() / "ops.yaml", {{kAdd, {"status: EXPECTED_PASSING"}},
                                               {kMul, mul_fields},
                                               {"ops/gone-single_device-inference", {"status: EXPECTED_PASSING"}}});
  }
};

bool has_line(const std::string& output, const std::string& line) {
  return ("\n" + output).find("\n" + line + "\n") != std::string::npos;
}

// ---- report --unlisted / --stale / --placeholders ----

TEST_F(ReportTools, UnlistedStaleAndPlaceholders) {
  const CommandResult r = run_meshtest("report --unlisted --stale --placeholders" + roots());
  ASSERT_EQ(r.status, 0) << r.output;
  // 8 cases (2 programs x single_device/data_parallel x inference/training); 2 have a status. Plus 2 placeholders.
  EXPECT_NE(r.output.find("UNLISTED on n150: discovered, no expected status (6)"), std::string::npos) << r.output;
  EXPECT_TRUE(has_line(r.output, "  ops/add-data_parallel-training")) << r.output;
  EXPECT_FALSE(has_line(r.output, std::string("  ") + kAdd)) << r.output;
  EXPECT_NE(r.output.find("STALE: test_config entries no discovered case has (1)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ops.yaml:7:3: test id 'ops/gone-single_device-inference' matches no discovered case"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("PLACEHOLDERS by bring-up status (2)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  FAILED_RUNTIME (1)\n    placeholder/big/model-b\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  NOT_STARTED (1)\n    placeholder/big/model-a\n"), std::string::npos) << r.output;
}

TEST_F(ReportTools, UnlistedIsPerArch) {
  // A status set for p150 only: listed there, unlisted on n150 (with a note that its entry sets none).
  rewrite_mul({"arch_overrides:", "  p150:", "    status: EXPECTED_PASSING"});
  const CommandResult n150 = run_meshtest("report --unlisted" + roots());
  ASSERT_EQ(n150.status, 0) << n150.output;
  EXPECT_TRUE(has_line(n150.output, std::string("  ") + kMul + "  (its entry sets no status for n150)"))
      << n150.output;
  const CommandResult p150 = run_meshtest("report --unlisted --arch p150" + roots());
  ASSERT_EQ(p150.status, 0) << p150.output;
  EXPECT_NE(p150.output.find("UNLISTED on p150"), std::string::npos) << p150.output;
  EXPECT_EQ(p150.output.find(kMul), std::string::npos) << p150.output;
}

// ---- changed --base REF, run --changed REF ----

TEST_F(ReportTools, ChangedAfterEditingOneStatusSelectsExactlyThatId) {
  init_repository();
  rewrite_mul({"status: KNOWN_FAILURE_XFAIL", "reason: broken on purpose", "required_pcc: 0.99"});
  commit("mul xfails");
  const CommandResult changed = run_meshtest("changed --base HEAD~1" + roots());
  ASSERT_EQ(changed.status, 0) << changed.output;
  EXPECT_TRUE(has_line(changed.output, std::string(kMul) + "  status EXPECTED_PASSING -> KNOWN_FAILURE_XFAIL"))
      << changed.output;
  EXPECT_NE(changed.output.find("1 changed id(s) since HEAD~1"), std::string::npos) << changed.output;

  const CommandResult ids = run_meshtest("changed -q --base HEAD~1" + roots());
  ASSERT_EQ(ids.status, 0) << ids.output;
  EXPECT_EQ(ids.output, std::string(kMul) + "\n");

  const CommandResult selected = run_meshtest("collect -q --changed HEAD~1" + roots());
  ASSERT_EQ(selected.status, 0) << selected.output;
  EXPECT_TRUE(has_line(selected.output, kMul)) << selected.output;
  EXPECT_NE(selected.output.find("1/10 tests collected (9 deselected)"), std::string::npos) << selected.output;
  // Nothing changed since HEAD: nothing runs, and that is no error.
  const CommandResult none = run_meshtest("run --changed HEAD --isolation none --db ''" + roots());
  EXPECT_EQ(none.status, 0) << none.output;
  EXPECT_NE(none.output.find("nothing to run"), std::string::npos) << none.output;
}

TEST_F(ReportTools, ChangedSeesMovedEntriesAsUnchangedAndNamesAddedRemovedAndThresholds) {
  init_repository();
  // Same fields in another order and another file: no change. A threshold edit, an entry removed, one added.
  fs::remove(config() / "ops.yaml");
  write_test_config(config() / "moved" / "ops.yaml",
                    {{"ops/add-data_parallel-inference", {"status: EXPECTED_PASSING"}},
                     {kMul, {"required_pcc: 0.95", "status: EXPECTED_PASSING"}},
                     {kAdd, {"status: EXPECTED_PASSING"}}});
  const CommandResult r = run_meshtest("changed --base HEAD" + roots());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has_line(r.output, "ops/add-data_parallel-inference  added")) << r.output;
  EXPECT_TRUE(has_line(r.output, std::string(kMul) + "  required_pcc 0.99 -> 0.95")) << r.output;
  EXPECT_TRUE(has_line(r.output, "ops/gone-single_device-inference  removed (no case in the matrix)")) << r.output;
  EXPECT_EQ(r.output.find(std::string(kAdd) + "  "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("3 changed id(s)"), std::string::npos) << r.output;
}

TEST_F(ReportTools, ChangedLoaderFileSelectsItsCases) {
  init_repository();
  write_program(models() / "ops" / "mul.mlir", "subtract");
  const CommandResult r = run_meshtest("changed -q --base HEAD" + roots());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output,
            "ops/mul-data_parallel-inference\nops/mul-data_parallel-training\nops/mul-single_device-inference\n"
            "ops/mul-single_device-training\n");
}

TEST_F(ReportTools, ChangedNeedsAKnownRevision) {
  init_repository();
  const CommandResult r = run_meshtest("changed --base no-such-branch" + roots());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("'no-such-branch' names no commit"), std::string::npos) << r.output;
  const CommandResult run = run_meshtest("run --changed no-such-branch --isolation none --db ''" + roots());
  EXPECT_EQ(run.status, 2) << run.output;
}

// ---- report --format csv|md ----

TEST_F(ReportTools, CsvAndMarkdownTablesOfTheNewestRun) {
  const std::string db = (dir / "results.db").string();
  const CommandResult run =
      run_meshtest("run " + std::string(kAdd) + " " + kMul + " --isolation none --db " + db + roots());
  ASSERT_EQ(run.status, 0) << run.output;
  const CommandResult csv = run_meshtest("report --format csv --db " + db);
  ASSERT_EQ(csv.status, 0) << csv.output;
  EXPECT_EQ(csv.output.substr(0, csv.output.find('\n')),
            "id,arch,backend,status,outcome,failure_class,failure_summary,pcc,duration_s,peak_host_rss_bytes,"
            "peak_device_dram_bytes");
  EXPECT_NE(csv.output.find("\n" + std::string(kAdd) + ",n150,simulated,EXPECTED_PASSING,passed,"), std::string::npos)
      << csv.output;
  EXPECT_NE(csv.output.find("\n" + std::string(kMul) + ",n150,"), std::string::npos) << csv.output;

  const fs::path md = dir / "table.md";
  const CommandResult written = run_meshtest("report --format md --db " + db + " --out " + md.string());
  ASSERT_EQ(written.status, 0) << written.output;
  const std::string text = read_text_file(md.string());
  EXPECT_EQ(text.substr(0, 9), "| id | ar") << text;
  EXPECT_NE(text.find("\n| --- | --- |"), std::string::npos) << text;
  EXPECT_NE(text.find("\n| " + std::string(kAdd) + " | n150 | simulated | EXPECTED_PASSING | passed |"),
            std::string::npos)
      << text;

  const CommandResult unknown = run_meshtest("report --format csv --run nope --db " + db);
  EXPECT_EQ(unknown.status, 2) << unknown.output;
}

}  // namespace
}  // namespace meshtest::testing
