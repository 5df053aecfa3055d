// Perf mode through the `meshtest` binary: every compiled case records its
// modelled device time, top ops and modelled samples/s; `--perf=N` adds N
// timed executions after a warm-up; a case whose YAML markers say `perf`
// runs so without the flag (docs/how-to/perf.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/common/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using meshtest::testing::CommandResult;

const std::string kMlp = "mnist/image_classification/native-mlp-single_device-inference";

class PerfCli : public ::testing::Test {
 protected:
  // Runs `args`, returns the one JSON record.
  nlohmann::json run(const std::string& args) const {
    const std::string json = (dir / "out.jsonl").string();
    const CommandResult r = meshtest::testing::run_meshtest("run " + args + " --db '' --json " + json);
    EXPECT_EQ(r.status, 0) << r.output;
    std::ifstream in(json);
    std::string line;
    std::getline(in, line);
    return nlohmann::json::parse(line);
  }

  const meshtest::testing::TestDir dir{"meshtest_perf_"};
};

TEST_F(PerfCli, EveryCompiledCaseRecordsItsModelledDeviceTime) {
  const nlohmann::json r = run(kMlp);
  EXPECT_GT(r["modelled_device_seconds"].get<double>(), 0);
  EXPECT_GT(r["samples_per_second"].get<double>(), 0);
  EXPECT_NE(r["modelled_top_ops"].get<std::string>().find("linear "), std::string::npos) << r.dump();
  EXPECT_EQ(r["perf_iterations"].get<int64_t>(), 0);  // not a perf run
  EXPECT_EQ(r["perf_execute_seconds"].get<double>(), 0);
}

TEST_F(PerfCli, PerfFlagTimesTheExecutions) {
  const nlohmann::json r = run(kMlp + " --perf=3");
  EXPECT_EQ(r["perf_iterations"].get<int64_t>(), 3);
  EXPECT_GT(r["perf_execute_seconds"].get<double>(), 0);
  EXPECT_EQ(r["outcome"], "passed");
}

TEST_F(PerfCli, AYamlPerfMarkerMakesAPerfRun) {
  fs::create_directories(dir / "config");
  meshtest::testing::write_test_config(dir / "config" / "perf.yaml",
                                       {{kMlp, {"status: EXPECTED_PASSING", "markers: [perf]"}}});
  const nlohmann::json r = run(kMlp + " --config-dir " + (dir / "config").string());
  EXPECT_EQ(r["perf_iterations"].get<int64_t>(), 5);  // kDefaultPerfIterations
}

}  // namespace
