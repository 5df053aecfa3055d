// run --log-memory through the `meshtest` binary: the record (JSON lines and
// the store) keeps the host's peak memory of every phase the case went
// through; without the flag those fields stay 0.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/common/cli_fixture.h"

namespace {

const std::string kMlp = "mnist/image_classification/native-mlp-single_device-inference";
const char* const kPhases[] = {"load", "golden", "compile", "execute", "compare"};

class LogMemory : public ::testing::Test {
 protected:
  // The one result line of a run of kMlp with `flags`.
  nlohmann::json run(const std::string& flags) const {
    const std::string json = (dir / "results.jsonl").string();
    const meshtest::testing::CommandResult r =
        meshtest::testing::run_meshtest("run " + kMlp + " " + flags + " --db '' --json " + json);
    EXPECT_EQ(r.status, 0) << r.output;
    std::ifstream in(json);
    std::string line;
    std::getline(in, line);
    return nlohmann::json::parse(line);
  }

  const meshtest::testing::TestDir dir{"meshtest_log_memory_"};
};

TEST_F(LogMemory, EveryPhaseHasItsPeakAndTheCaseItsHighest) {
  const nlohmann::json r = run("--log-memory");
  ASSERT_TRUE(r.contains("peak_host_rss_by_phase")) << r.dump();
  const nlohmann::json& by_phase = r["peak_host_rss_by_phase"];
  int64_t highest = 0;
  for (const char* phase : kPhases) {
    const int64_t bytes = by_phase.at(phase).get<int64_t>();
    EXPECT_GT(bytes, 1 << 20) << phase << ": " << by_phase.dump();
    highest = std::max(highest, bytes);
  }
  EXPECT_GE(r.at("peak_host_rss_bytes").get<int64_t>(), highest);
}

TEST_F(LogMemory, WithoutTheFlagNothingIsLogged) {
  const nlohmann::json r = run("");
  for (const char* phase : kPhases) EXPECT_EQ(r["peak_host_rss_by_phase"].at(phase).get<int64_t>(), 0) << phase;
}

}  // namespace
