// validate-config, show and collect against the built-in zoo, as a user
// meets them: one clear file:line:column line per problem, exit 2; the
// resolved entry with where each value came from; the collect summary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "runner/cli/commands.h"
#include "runner/cli/config_commands.h"

namespace meshtest::runner {
namespace {

namespace fs = std::filesystem;

class ConfigCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("meshtest_config_cmd_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    common.models_roots = {MESHTEST_MODELS_ROOT};
    common.config_dir = dir.string();
  }
  void TearDown() override { fs::remove_all(dir); }

  void write(const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; }
  std::string path(const std::string& name) const { return (dir / name).string(); }

  int validate(bool schema_only = false) {
    std::ostringstream s;
    const int status = cmd_validate_config(common, {schema_only}, s);
    out = s.str();
    return status;
  }
  int show(const std::string& id) {
    std::ostringstream o, e;
    const int status = cmd_show(common, id, o, e);
    out = o.str();
    err = e.str();
    return status;
  }
  int collect(const CollectView& view = {}) {
    std::ostringstream o, e;
    std::streambuf* old_out = std::cout.rdbuf(o.rdbuf());
    std::streambuf* old_err = std::cerr.rdbuf(e.rdbuf());
    const int status = cmd_collect(common, view);
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    out = o.str();
    err = e.str();
    return status;
  }
  std::string last_line() const {
    const size_t end = out.find_last_not_of('\n');
    return out.substr(out.rfind('\n', end) + 1, end - out.rfind('\n', end));
  }

  fs::path dir;
  CommonOptions common;
  std::string out, err;
};

const std::string kResnet50 = "resnet/native-resnet50-single_device-inference";
const std::string kResnet18 = "resnet/native-resnet18-single_device-inference";

TEST_F(ConfigCommandsTest, ShippedConfigIsValid) {
  common.config_dir = std::string(MESHTEST_SOURCE_DIR) + "/test_config";
  EXPECT_EQ(validate(), 0) << out;
  EXPECT_EQ(out.rfind("test config OK: ", 0), 0u) << out;
  EXPECT_EQ(out.find("warning"), std::string::npos) << out;
}

// A typo in a field, an id in two files and a stale id: one line each.
TEST_F(ConfigCommandsTest, NewUserMistakesGiveOneClearLineEach) {
  write("a.yaml", "test_config:\n  " + kResnet50 + ":\n    stauts: EXPECTED_PASSING\n");
  write("b.yaml", "test_config:\n  " + kResnet50 + ":\n    status: EXPECTED_PASSING\n"
                  "  resnet/native-resnet05-single_device-inference:\n    status: EXPECTED_PASSING\n");
  EXPECT_EQ(validate(), 2);
  EXPECT_EQ(out, path("a.yaml") + ":3:5: unknown field 'stauts' (did you mean 'status'?)\n" +
                     path("b.yaml") + ":2:3: duplicate test id '" + kResnet50 + "' (first defined at " +
                     path("a.yaml") + ":2:3)\n" + path("b.yaml") +
                     ":4:3: test id 'resnet/native-resnet05-single_device-inference' matches no discovered case "
                     "(nearest: '" + kResnet50 + "')\n" +
                     "error: 3 problem(s) in test config '" + dir.string() + "'\n");
}

TEST_F(ConfigCommandsTest, SchemaOnlySkipsTheDiscoveryChecks) {
  write("a.yaml", "test_config:\n  some/other/repo-model-single_device-inference: {status: EXPECTED_PASSING}\n");
  EXPECT_EQ(validate(), 2) << out;
  EXPECT_EQ(validate(true), 0) << out;
  EXPECT_EQ(out, "test config OK: 1 entries, 0 placeholder(s) in 1 file(s) (schema only)\n");
}

TEST_F(ConfigCommandsTest, PlaceholderOfADiscoveredModelIsAnError) {
  write("p.yaml", "PLACEHOLDER_MODELS:\n  microsoft/resnet-50:\n  some-future-model:\n");
  EXPECT_EQ(validate(), 2);
  EXPECT_EQ(out.rfind(path("p.yaml") + ":2:3: placeholder 'microsoft/resnet-50' duplicates the discovered model "
                                       "'resnet/native-resnet50'",
                      0),
            0u)
      << out;
}

TEST_F(ConfigCommandsTest, WarningsDoNotFail) {
  write("a.yaml", "test_config:\n  " + kResnet50 + ": {status: EXPECTED_PASSING, inject_custom_moe: true}\n");
  EXPECT_EQ(validate(), 0) << out;
  EXPECT_EQ(last_line(), "test config OK: 1 entries, 0 placeholder(s) in 1 file(s), 1 warning(s)");
}

TEST_F(ConfigCommandsTest, MissingConfigPath) {
  common.config_dir = path("nowhere");
  EXPECT_EQ(validate(), 2);
  EXPECT_EQ(out, "error: test config path '" + path("nowhere") + "' does not exist\n");
}

TEST_F(ConfigCommandsTest, ShowResolvesArchOverridesAndNamesSources) {
  write("a.yaml", "test_config:\n  " + kResnet50 + R"(:
    status: EXPECTED_PASSING
    required_pcc: 0.98
    markers: [push]
    arch_overrides:
      p150:
        required_pcc: 0.95
)");
  common.arch = "p150";
  ASSERT_EQ(show(kResnet50), 0) << err;
  EXPECT_NE(out.find("case: loader resnet/native, model resnet, variant resnet50, group red\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("entry: " + path("a.yaml") + ":2:3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  status                         EXPECTED_PASSING         " + path("a.yaml") + ":3\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  required_pcc                   0.95                     " + path("a.yaml") +
                     ":8 (arch_overrides.p150)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  reason                         -                        default\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  arch_overrides: p150 (" + path("a.yaml") + ":7, applied)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("markers: expected_passing inference n150 nightly p150 push red single_device\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  pcc >= 0.95 (checked)\n  atol <= 0.16 (not checked)\n"), std::string::npos) << out;
  common.arch = "n150";
  ASSERT_EQ(show(kResnet50), 0) << err;
  EXPECT_NE(out.find("  required_pcc                   0.98                     " + path("a.yaml") + ":4\n"),
            std::string::npos)
      << out;
}

// An entry that passes on the simulated chip and is a known failure on a PJRT plugin.
const std::string kXfailOnPjrt = R"(:
    status: EXPECTED_PASSING
    required_pcc: 0.98
    backend_overrides:
      pjrt:
        status: KNOWN_FAILURE_XFAIL
        reason: plugin lacks the fused conv
)";

TEST_F(ConfigCommandsTest, ShowNamesBackendOverridesAsTheSource) {
  write("a.yaml", "test_config:\n  " + kResnet50 + kXfailOnPjrt);
  common.backend = "pjrt";
  ASSERT_EQ(show(kResnet50), 0) << err;
  EXPECT_NE(out.find("arch: n150\nbackend: pjrt\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  status                         KNOWN_FAILURE_XFAIL      " + path("a.yaml") +
                     ":7 (backend_overrides.pjrt)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  reason                         plugin lacks the fused conv " + path("a.yaml") +
                     ":8 (backend_overrides.pjrt)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  required_pcc                   0.98                     " + path("a.yaml") + ":4\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  backend_overrides: pjrt (" + path("a.yaml") + ":6, applied)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("markers: inference known_failure_xfail n150"), std::string::npos) << out;

  common.backend = "simulated";
  ASSERT_EQ(show(kResnet50), 0) << err;
  EXPECT_NE(out.find("  status                         EXPECTED_PASSING         " + path("a.yaml") + ":3\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  backend_overrides: pjrt (" + path("a.yaml") + ":6)\n"), std::string::npos) << out;
}

TEST_F(ConfigCommandsTest, CollectsAsXfailOnlyUnderTheBackendOfTheOverride) {
  write("a.yaml", "test_config:\n  " + kResnet50 + kXfailOnPjrt);
  common.selection.marker = "known_failure_xfail";
  common.backend = "pjrt";
  ASSERT_EQ(collect(), 0) << out;
  EXPECT_EQ(out.find(kResnet50 + "\n    KNOWN_FAILURE_XFAIL · markers: "), 0u) << out;
  EXPECT_NE(out.find(" · reason: plugin lacks the fused conv\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n1/"), std::string::npos) << out;

  common.backend = "simulated";  // the marker no case carries now: an error
  EXPECT_EQ(collect(), 2);
  common.selection.marker.clear();
  common.selection.keyword = "resnet50 and single_device and inference";
  ASSERT_EQ(collect(), 0);
  EXPECT_EQ(out.find(kResnet50 + "\n    EXPECTED_PASSING · markers: "), 0u) << out;
}

// kXfailOnPjrt, and under run --emitc an xfail with its own reason on every backend.
const std::string kXfailUnderEmitc = kXfailOnPjrt + R"(    emitc_overrides:
      status: KNOWN_FAILURE_XFAIL
      reason: generated conv differs
)";

TEST_F(ConfigCommandsTest, ShowNamesEmitcOverridesAsTheSource) {
  write("a.yaml", "test_config:\n  " + kResnet50 + kXfailUnderEmitc);
  common.backend = "pjrt";
  common.emitc = true;
  ASSERT_EQ(show(kResnet50), 0) << err;
  EXPECT_NE(out.find("arch: n150\nbackend: pjrt\nemitc: yes\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  status                         KNOWN_FAILURE_XFAIL      " + path("a.yaml") +
                     ":10 (emitc_overrides)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  reason                         generated conv differs   " + path("a.yaml") +
                     ":11 (emitc_overrides)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  backend_overrides: pjrt (" + path("a.yaml") + ":6, applied)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  emitc_overrides: (" + path("a.yaml") + ":9, applied)\n"), std::string::npos) << out;

  common.emitc = false;
  ASSERT_EQ(show(kResnet50), 0) << err;
  EXPECT_NE(out.find("emitc: no\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  reason                         plugin lacks the fused conv " + path("a.yaml") +
                     ":8 (backend_overrides.pjrt)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("  emitc_overrides: (" + path("a.yaml") + ":9)\n"), std::string::npos) << out;
}

TEST_F(ConfigCommandsTest, CollectsAsXfailOnlyUnderEmitc) {
  write("a.yaml", "test_config:\n  " + kResnet50 + kXfailUnderEmitc);
  common.selection.marker = "known_failure_xfail";
  common.emitc = true;  // on the simulated backend, whose own expectation is a pass
  ASSERT_EQ(collect(), 0) << out;
  EXPECT_EQ(out.find(kResnet50 + "\n    KNOWN_FAILURE_XFAIL · markers: "), 0u) << out;
  EXPECT_NE(out.find(" · reason: generated conv differs\n"), std::string::npos) << out;

  common.emitc = false;  // the marker no case carries now: an error
  EXPECT_EQ(collect(), 2);
}

TEST_F(ConfigCommandsTest, AnUnknownBackendStopsCollect) {
  common.backend = "pjrtt";
  std::ostringstream report;
  EXPECT_EQ(collect_cases(common, &report), nullptr);
  EXPECT_EQ(report.str(), "error: --backend: unknown backend 'pjrtt' (did you mean 'pjrt'?); known backends: "
                          "simulated, pjrt, pjrt:<platform>\n");
}

TEST_F(ConfigCommandsTest, ValidateConfigChecksBackendOverrides) {
  write("a.yaml", "test_config:\n  " + kResnet50 + kXfailOnPjrt);
  EXPECT_EQ(validate(), 0) << out;
  write("a.yaml", "test_config:\n  " + kResnet50 + ":\n    backend_overrides:\n      xla: {status: EXPECTED_PASSING}\n");
  EXPECT_EQ(validate(), 2);
  EXPECT_EQ(out.rfind(path("a.yaml") + ":4:7: unknown backend 'xla'; known backends: simulated, pjrt, pjrt:<platform>\n", 0), 0u)
      << out;
}

TEST_F(ConfigCommandsTest, ShowAnUnknownIdSuggestsTheNearest) {
  EXPECT_EQ(show("resnet/native-resnet05-single_device-inference"), 2);
  EXPECT_EQ(err, "error: no test case or test_config entry has the id "
                 "'resnet/native-resnet05-single_device-inference' (nearest: '" + kResnet50 + "')\n");
}

TEST_F(ConfigCommandsTest, ShowAPlaceholder) {
  write("p.yaml", "PLACEHOLDER_MODELS:\n  Future/Model-X: {reason: planned for Q3}\n");
  ASSERT_EQ(show("placeholder/future/model-x"), 0) << err;
  EXPECT_NE(out.find("case: placeholder for 'Future/Model-X' (not run)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  bringup_status                 NOT_STARTED              default\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  reason                         planned for Q3           " + path("p.yaml") + ":2\n"),
            std::string::npos)
      << out;
}

TEST_F(ConfigCommandsTest, CollectSummaryCountsSelectedTotalAndDeselected) {
  ASSERT_EQ(collect(), 0);
  const std::string all = last_line();
  const size_t total = std::stoul(all.substr(all.find('/') + 1));
  EXPECT_EQ(all, std::to_string(total) + "/" + std::to_string(total) + " tests collected (0 deselected)");
  write("a.yaml", "test_config:\n  " + kResnet18 + ": {status: EXCLUDE_MODEL}\n"
                  "PLACEHOLDER_MODELS:\n  Future/Model-X:\n");
  ASSERT_EQ(collect(), 0);
  EXPECT_EQ(last_line(), std::to_string(total) + "/" + std::to_string(total + 1) + " tests collected (1 deselected)");
  EXPECT_NE(out.find("placeholder/future/model-x  [placeholder: NOT_STARTED]\n"), std::string::npos) << out;
  EXPECT_EQ(out.find(kResnet18), std::string::npos);
  common.selection.keyword = "resnet50 and single_device and inference";  // one case
  ASSERT_EQ(collect(CollectView{false, -1}), 0);  // -q: the bare ids; the summary line goes to stderr
  EXPECT_EQ(out, kResnet50 + "\n");
  EXPECT_NE(err.find("1/" + std::to_string(total + 1) + " tests collected (" + std::to_string(total) + " deselected)\n"),
            std::string::npos)
      << err;
}

// Entries no discovered case has (every entry outside --models-root DIR): one
// summary line; -v (each_stale_id) lists each.
TEST_F(ConfigCommandsTest, StaleIdsAreOneSummaryLineUnlessVerbose) {
  write("a.yaml", "test_config:\n  gone/native-a-single_device-inference: {status: EXPECTED_PASSING}\n"
                  "  gone/native-b-single_device-inference: {status: EXPECTED_PASSING}\n");
  ASSERT_EQ(collect(), 0) << err;
  EXPECT_EQ(err, "warning: 2 test_config entries match no discovered case (the first at " + path("a.yaml") +
                     ":2:3); -v or `meshtest validate-config` lists each\n");
  common.each_stale_id = true;
  ASSERT_EQ(collect(), 0) << err;
  EXPECT_NE(err.find(path("a.yaml") + ":2:3: warning: test id 'gone/native-a-single_device-inference' matches no "
                                      "discovered case"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find(path("a.yaml") + ":3:3: warning: test id 'gone/native-b-single_device-inference'"),
            std::string::npos)
      << err;
}

TEST_F(ConfigCommandsTest, ConfigErrorsStopCollect) {
  write("a.yaml", "test_config:\n  " + kResnet50 + ": {required_pcc: 2}\n");
  EXPECT_EQ(collect(), 2);
  common.config_dir.clear();
  common.arch = "n15O";
  EXPECT_EQ(collect(), 2);
}

}  // namespace
}  // namespace meshtest::runner
