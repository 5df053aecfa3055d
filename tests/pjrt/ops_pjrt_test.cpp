// `meshtest ops --backend pjrt` through meshtest's own PJRT plugin: every
// distinct op of a selection and of a folder of *.mtir / *.mlir files runs
// on the plugin and gives exactly the simulated chip's figures (the plugin is
// bit-identical to it), the report names the backend, a broken kernel fails
// its op there too, an op the StableHLO writer cannot write or the plugin
// refuses is that op's row, and a plugin that does not open stops the
// command before any op (exit 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using meshtest::testing::CommandResult;
using meshtest::testing::run_meshtest;

const char* const kMnist = "-k 'mnist and single_device and inference'";

// A meshtest IR graph with fused ops (written as tenstorrent.* composites).
constexpr const char* kNormBlock = R"(graph @norm_block {
  input @x : f32[2,16]
  weight @w : f32[8,16] = normal(mean=0.0, std=0.25, seed=3)
  weight @g : f32[8] = constant(1.0)
  weight @b : f32[8] = constant(0.0)
  %0 = linear(@x, @w, @b) : f32[2,8]
  %1 = gelu(%0) {approximate = "tanh"} : f32[2,8]
  %2 = layer_norm(%1, @g, @b) {eps = 1e-05} : f32[2,8]
  %3 = softmax(%2) {axis = -1} : f32[2,8]
  %4 = mul(%3, %1) : f32[2,8]
  output @y = %4
}
)";
// A StableHLO program: elementwise, a contraction, a transpose and a call (whose add is an op too).
constexpr const char* kShlo = R"(module @jit_f {
  func.func public @main(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.multiply %a, %a : tensor<3x5xf32>
    %1 = stablehlo.dot_general %0, %b, contracting_dims = [1] x [0] : (tensor<3x5xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
    %2 = call @twice(%1) : (tensor<3x2xf32>) -> tensor<3x2xf32>
    %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
    return %3 : tensor<2x3xf32>
  }
  func.func private @twice(%y: tensor<3x2xf32>) -> tensor<3x2xf32> {
    %0 = stablehlo.add %y, %y : tensor<3x2xf32>
    return %0 : tensor<3x2xf32>
  }
}
)";
// A collective: without a mesh the StableHLO writer cannot write it.
constexpr const char* kCollective = R"(graph @reduce {
  input @x : f32[2,4]
  %0 = all_reduce(@x) {axes = "model", group_size = 2} : f32[2,4]
  %1 = add(%0, @x) : f32[2,4]
  output @y = %1
}
)";

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class OpsOnPjrt : public ::testing::Test {
 protected:
  // `meshtest ops ARGS --out DIR/<out>`.
  CommandResult ops(const std::string& args, const std::string& out, const std::string& env = "") const {
    return run_meshtest("ops " + args + " --out " + (dir / out).string(), env);
  }
  std::vector<nlohmann::json> rows(const std::string& out) const {
    std::vector<nlohmann::json> table;
    std::ifstream in(dir / out / "ops.jsonl");
    for (std::string line; std::getline(in, line);) table.push_back(nlohmann::json::parse(line));
    return table;
  }
  std::set<std::string> ops_with(const std::string& out, const std::string& status) const {
    std::set<std::string> names;
    for (const nlohmann::json& r : rows(out)) {
      if (r.at("status") == status) names.insert(r.at("op").get<std::string>());
    }
    return names;
  }

  // `ops ARGS` on the simulated chip and on the plugin: every op passes on
  // the plugin with the very figures of the simulated chip, and each report
  // names its backend. `on_plugin` names the plugin (flag or environment).
  void expect_plugin_equals_simulated(const std::string& args, const std::string& on_plugin,
                                      const std::string& env = "") const {
    const CommandResult simulated = ops(args, "simulated");
    ASSERT_EQ(simulated.status, 0) << simulated.output;
    const CommandResult pjrt = ops(args + " --backend pjrt" + on_plugin, "pjrt", env);
    EXPECT_EQ(pjrt.status, 0) << pjrt.output;
    EXPECT_NE(pjrt.output.find(" on pjrt (meshtest "), std::string::npos) << pjrt.output;
    EXPECT_NE(read(dir / "pjrt" / "ops.txt").find("\nbackend: pjrt (meshtest "), std::string::npos);
    EXPECT_NE(read(dir / "simulated" / "ops.txt").find("\nbackend: simulated"), std::string::npos);
    const std::vector<nlohmann::json> want = rows("simulated"), got = rows("pjrt");
    ASSERT_GE(want.size(), 4u) << simulated.output;
    ASSERT_EQ(got.size(), want.size()) << pjrt.output;
    for (size_t i = 0; i < want.size(); ++i) {
      const nlohmann::json &w = want[i], &g = got[i];
      const std::string op = g.at("op").get<std::string>() + " " + g.at("shapes").get<std::string>();
      EXPECT_EQ(g.at("key"), w.at("key"));
      EXPECT_EQ(g.at("status"), "passed") << op << ": " << g.value("detail", "");
      EXPECT_EQ(g.at("stage"), "compared") << op;
      EXPECT_EQ(g.at("backend"), "pjrt") << op;
      EXPECT_EQ(g.value("backend_platform", "").rfind("meshtest ", 0), 0u) << op << ": " << g.dump();
      EXPECT_NE(g.at("backend_platform"), w.at("backend_platform")) << op;  // the plugin's, not the in-process chip's
      EXPECT_EQ(w.at("backend"), "simulated") << op;
      // Bit-identical device outputs: the same PCC and scale to the last bit.
      EXPECT_EQ(g.value("pcc", -1.0), w.value("pcc", -2.0)) << op;
      EXPECT_EQ(g.value("norm_ratio", -1.0), w.value("norm_ratio", -2.0)) << op;
    }
  }

  void write_folder() const {
    fs::create_directories(dir / "irs");
    std::ofstream(dir / "irs" / "norm_block.mtir") << kNormBlock;
    std::ofstream(dir / "irs" / "shlo_f.mlir") << kShlo;
  }

  const meshtest::testing::TestDir dir{"meshtest-ops-pjrt-"};
};

TEST_F(OpsOnPjrt, SelectionRunsEveryOpOnThePluginAsOnTheSimulatedChip) {
  expect_plugin_equals_simulated(kMnist, std::string(" --pjrt-plugin ") + MESHTEST_PJRT_PLUGIN);
  EXPECT_EQ(ops_with("pjrt", "passed"), (std::set<std::string>{"reshape", "linear", "relu"}));
}

TEST_F(OpsOnPjrt, FolderOfMtirAndStablehloRunsOnThePluginNamedInTheEnvironment) {
  write_folder();
  expect_plugin_equals_simulated((dir / "irs").string(), "",
                                 std::string("MESHTEST_PJRT_PLUGIN=") + MESHTEST_PJRT_PLUGIN);
  EXPECT_EQ(ops_with("pjrt", "passed"),
            (std::set<std::string>{"linear", "gelu", "layer_norm", "softmax", "mul", "stablehlo.multiply",
                                   "stablehlo.dot_general", "func.call", "stablehlo.transpose", "stablehlo.add"}));
}

// The plugin's own kernels are what is checked: one broken kernel fails exactly its op there.
TEST_F(OpsOnPjrt, ABrokenKernelFailsItsOpOnThePlugin) {
  write_folder();
  const CommandResult r = ops((dir / "irs").string() + " --backend pjrt --pjrt-plugin " + MESHTEST_PJRT_PLUGIN,
                              "pjrt", "MESHTEST_MUTANT=softmax_scale_5pct");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(ops_with("pjrt", "failed"), std::set<std::string>{"softmax"}) << r.output;
  EXPECT_TRUE(fs::exists(dir / "pjrt" / "failing" / "softmax_001.mtir")) << r.output;
}

TEST_F(OpsOnPjrt, AnOpTheWriterCannotWriteOrThePluginRefusesIsThatOpsRow) {
  fs::create_directories(dir / "collective");
  std::ofstream(dir / "collective" / "reduce.mtir") << kCollective;
  const CommandResult unwritable =
      ops((dir / "collective").string() + " --backend pjrt --pjrt-plugin " + MESHTEST_PJRT_PLUGIN, "unwritable");
  EXPECT_EQ(unwritable.status, 1) << unwritable.output;
  for (const nlohmann::json& r : rows("unwritable")) {
    if (r.at("op") == "all_reduce") {
      EXPECT_EQ(r.at("status"), "compile error") << r.dump();
      EXPECT_EQ(r.at("stage"), "imported") << r.dump();
      EXPECT_EQ(r.at("detail").get<std::string>().rfind("stablehlo writer: op #0 all_reduce: ", 0), 0u) << r.dump();
    } else {
      EXPECT_EQ(r.at("status"), "passed") << r.dump();
    }
  }
  EXPECT_EQ(rows("unwritable").size(), 2u) << unwritable.output;

  // A plugin whose compile refuses every program: each op is a compile error row with the plugin's words.
  write_folder();
  const CommandResult refused =
      ops((dir / "irs").string() + " --backend pjrt --pjrt-plugin " + MESHTEST_REFUSING_PLUGIN, "refused");
  EXPECT_EQ(refused.status, 1) << refused.output;
  const std::vector<nlohmann::json> table = rows("refused");
  EXPECT_EQ(table.size(), 10u) << refused.output;
  for (const nlohmann::json& r : table) {
    EXPECT_EQ(r.at("status"), "compile error") << r.dump();
    EXPECT_EQ(r.at("backend"), "pjrt") << r.dump();
    EXPECT_EQ(r.at("detail").get<std::string>().rfind("PJRT_Client_Compile: INVALID_ARGUMENT: ", 0), 0u) << r.dump();
  }
}

TEST_F(OpsOnPjrt, APluginThatDoesNotOpenStopsBeforeAnyOp) {
  write_folder();
  const std::string missing = (dir / "no_such_plugin.so").string();
  const CommandResult r = ops((dir / "irs").string() + " --backend pjrt --pjrt-plugin " + missing, "missing");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("meshtest: PJRT plugin " + missing + ": cannot open"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("distinct op(s)"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "missing")) << r.output;

  const CommandResult unnamed = ops(std::string(kMnist) + " --backend pjrt", "unnamed", "MESHTEST_PJRT_PLUGIN=");
  EXPECT_EQ(unnamed.status, 2) << unnamed.output;
  EXPECT_NE(unnamed.output.find("meshtest: --backend pjrt needs a plugin"), std::string::npos) << unnamed.output;
  EXPECT_FALSE(fs::exists(dir / "unnamed")) << unnamed.output;
}

}  // namespace
