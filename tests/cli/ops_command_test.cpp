// The op-by-op sweep through the `meshtest` binary: `meshtest ops` over IR
// files, --serialize dumps and StableHLO files de-duplicates ops and prints
// the table (and, for StableHLO, where each op came from); with
// one device kernel broken (MESHTEST_MUTANT) exactly that op kind fails;
// --only / --skip / --compile-only; a failing op is saved as IR text that
// meshtest-opt reads and that runs as an op test through `meshtest run`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tests/common/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using meshtest::testing::CommandResult;

// Two graphs sharing ops: linear/gelu/layer_norm/softmax/add/matmul, the
// softmax of both identical (one row, seen twice).
constexpr const char* kBlock = R"(graph @block {
  input @x : f32[4,64]
  weight @w : f32[32,64] = normal(mean=0.0, std=0.125, seed=1)
  weight @b : f32[32] = constant(0.0)
  weight @g : f32[32] = constant(1.0)
  %0 = linear(@x, @w, @b) : f32[4,32]
  %1 = gelu(%0) {approximate = "none"} : f32[4,32]
  %2 = layer_norm(%1, @g, @b) {eps = 1e-05} : f32[4,32]
  %3 = softmax(%2) {axis = -1} : f32[4,32]
  %4 = add(%3, %1) : f32[4,32]
  output @y = %4
}
)";
constexpr const char* kAttention = R"(graph @attention {
  input @q : f32[4,32]
  input @k : f32[32,4]
  %0 = matmul(@q, @k) : f32[4,4]
  %1 = softmax(%0) {axis = -1} : f32[4,4]
  %2 = matmul(%1, @q) : f32[4,32]
  %3 = softmax(%2) {axis = -1} : f32[4,32]
  output @y = %3
}
)";

class Ops : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir / "ir");
    std::ofstream(dir / "ir" / "block.mtir") << kBlock;
    std::ofstream(dir / "ir" / "attention.mtir") << kAttention;
  }

  CommandResult ops(const std::string& args, const std::string& mutant = "") const {
    return meshtest::testing::run_meshtest("ops " + args + " --out " + (dir / "out").string(),
                                           mutant.empty() ? "" : "MESHTEST_MUTANT=" + mutant);
  }
  std::vector<nlohmann::json> table() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(dir / "out" / "ops.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }
  std::set<std::string> ops_with(const std::string& status) const {
    std::set<std::string> out;
    for (const nlohmann::json& r : table()) {
      if (r["status"] == status) out.insert(r["op"].get<std::string>());
    }
    return out;
  }

  const meshtest::testing::TestDir dir{"meshtest_ops_"};
};

TEST_F(Ops, DeduplicatesAndPassesOnAnHonestDevice) {
  const CommandResult r = ops((dir / "ir").string());
  ASSERT_EQ(r.status, 0) << r.output;
  // 9 ops in the two graphs, 8 distinct: the [4,32] softmax is in both.
  EXPECT_NE(r.output.find("8 distinct op(s) from 2 graph(s): 8 passed"), std::string::npos) << r.output;
  const std::vector<nlohmann::json> rows = table();
  ASSERT_EQ(rows.size(), 8u);
  int softmax_seen = 0;
  for (const nlohmann::json& row : rows) {
    if (row["shapes"] == "[4,32] -> [4,32]" && row["op"] == "softmax") softmax_seen = row["count"];
  }
  EXPECT_EQ(softmax_seen, 2);
  EXPECT_TRUE(fs::exists(dir / "out" / "ops.txt"));
  EXPECT_FALSE(fs::exists(dir / "out" / "failing"));
}

TEST_F(Ops, OneBrokenKernelFailsExactlyItsOpKind) {
  for (const auto& [mutant, op] : std::vector<std::pair<std::string, std::string>>{
           {"softmax_scale_5pct", "softmax"}, {"gelu_scale_1pct", "gelu"}, {"matmul_scale_1pct", "matmul"}}) {
    const CommandResult r = ops((dir / "ir").string(), mutant);
    EXPECT_EQ(r.status, 1) << mutant << "\n" << r.output;
    EXPECT_EQ(ops_with("failed"), std::set<std::string>{op}) << mutant << "\n" << r.output;
    std::set<std::string> others = {"linear", "gelu", "layer_norm", "softmax", "add", "matmul"};
    others.erase(op);
    EXPECT_EQ(ops_with("passed"), others) << mutant << "\n" << r.output;
  }
}

TEST_F(Ops, OnlySkipAndCompileOnly) {
  CommandResult r = ops((dir / "ir").string() + " --only softmax,add");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(ops_with("passed"), (std::set<std::string>{"softmax", "add"}));
  r = ops((dir / "ir").string() + " --skip softmax", "softmax_scale_5pct");
  EXPECT_EQ(r.status, 0) << r.output;  // the broken kind is left out
  EXPECT_EQ(ops_with("passed").count("softmax"), 0u);
  r = ops((dir / "ir").string() + " --compile-only", "softmax_scale_5pct");
  EXPECT_EQ(r.status, 0) << r.output;  // nothing ran
  EXPECT_EQ(ops_with("compiled").size(), 6u);
}

// The saved failing op: IR text meshtest-opt reads back, and an op test of
// `meshtest run` from a models root (failing under the mutant, passing without).
TEST_F(Ops, SavedFailingOpRunsAsAnOpTest) {
  ASSERT_EQ(ops((dir / "ir").string(), "softmax_scale_5pct").status, 1);
  ASSERT_TRUE(fs::exists(dir / "out" / "failing" / "softmax_001.mtir"));
  ASSERT_TRUE(fs::exists(dir / "out" / "failing" / "softmax_001.safetensors"));
  const CommandResult opt =
      meshtest::testing::run_command(std::string(MESHTEST_OPT_BINARY) + " --pipeline " + (dir / "out/failing/softmax_001.mtir").string());
  EXPECT_EQ(opt.status, 0) << opt.output;
  EXPECT_NE(opt.output.find("softmax("), std::string::npos) << opt.output;

  const std::string run = std::string(MESHTEST_BINARY) +
                          " run failing/softmax_001-single_device-inference --isolation none --db '' --models-root " +
                          (dir / "out").string();
  const CommandResult broken = meshtest::testing::run_command("MESHTEST_MUTANT=softmax_scale_5pct " + run);
  // No YAML entry: a failure is reported, not unexpected (exit 0), as for a model.
  EXPECT_NE(broken.output.find("FAILED   pcc="), std::string::npos) << broken.output;
  EXPECT_NE(broken.output.find("1 failed"), std::string::npos) << broken.output;
  const CommandResult honest = meshtest::testing::run_command(run);
  EXPECT_EQ(honest.status, 0) << honest.output;
  EXPECT_NE(honest.output.find("== 1 passed"), std::string::npos) << honest.output;
}

// ---- StableHLO files (*.mlir): every op of every function, with provenance ----
// Two files sharing `stablehlo.add` (three times, in two functions), an op the
// importer does not take (fft), a slice that the slice mutant breaks,
// and a file that does not parse.
constexpr const char* kShloA = R"(module @jit_a {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x3xf32>) -> tensor<4x2xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4x8xf32>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
    %2 = stablehlo.slice %1 [0:4, 1:3] : (tensor<4x3xf32>) -> tensor<4x2xf32>
    return %2 : tensor<4x2xf32>
  }
}
)";
constexpr const char* kShloB = R"(module @jit_b {
  func.func public @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = stablehlo.add %x, %x : tensor<4x8xf32>
    %1 = call @helper(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %2 = stablehlo.fft %1, type = FFT, length = [8] : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %2 : tensor<4x8xf32>
  }
  func.func private @helper(%y: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %cst = stablehlo.constant dense<2.0> : tensor<4x8xf32>
    %0 = stablehlo.add %y, %cst : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
)";

class StablehloOps : public Ops {
 protected:
  void SetUp() override {
    fs::create_directories(dir / "irs");
    std::ofstream(dir / "irs" / "shlo_a.mlir") << kShloA;
    std::ofstream(dir / "irs" / "shlo_b.mlir") << kShloB;
  }
  const nlohmann::json* row(const std::string& op) const {
    rows_ = table();
    for (const nlohmann::json& r : rows_) {
      if (r["op"] == op) return &r;
    }
    return nullptr;
  }
  mutable std::vector<nlohmann::json> rows_;
};

TEST_F(StablehloOps, DeduplicatesAcrossFilesAndKeepsEverySite) {
  const CommandResult r = ops((dir / "irs").string());
  EXPECT_EQ(r.status, 1) << r.output;  // fft is unsupported
  EXPECT_NE(r.output.find("5 distinct op(s) from 3 graph(s)"), std::string::npos) << r.output;
  const std::string a = (dir / "irs" / "shlo_a.mlir").string(), b = (dir / "irs" / "shlo_b.mlir").string();
  // The same add (types, no attributes) in both files and both of b's functions;
  // the helper's add of a constant is the same op (constants are operands).
  const nlohmann::json* add = row("stablehlo.add");
  ASSERT_NE(add, nullptr) << r.output;
  EXPECT_EQ((*add)["status"], "passed");
  EXPECT_EQ((*add)["stage"], "compared");
  EXPECT_EQ((*add)["seen"], (nlohmann::json{a + ":3:5 @main", b + ":3:5 @main", b + ":10:5 @helper"}));
  EXPECT_EQ((*add)["count"], 3);
  const nlohmann::json* fft = row("stablehlo.fft");
  ASSERT_NE(fft, nullptr) << r.output;
  EXPECT_EQ((*fft)["status"], "unsupported");
  EXPECT_EQ((*fft)["stage"], "parsed");
  EXPECT_EQ((*fft)["detail"], b + ":5:5: unsupported stablehlo.fft: no mapping onto meshtest ops");
  EXPECT_EQ((*fft)["seen"], nlohmann::json{b + ":5:5 @main"});
  EXPECT_EQ(ops_with("passed"),
            (std::set<std::string>{"stablehlo.add", "stablehlo.dot_general", "stablehlo.slice", "func.call"}));
  // Provenance on the console and in provenance.txt; constants and returns are no ops of their own.
  EXPECT_NE(r.output.find("where each op was seen:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("  " + b + ":10:5 @helper\n"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(dir / "out" / "provenance.txt"));
  EXPECT_EQ(row("stablehlo.constant"), nullptr);
  EXPECT_FALSE(fs::exists(dir / "out" / "failing"));  // an unsupported op has no graph to save
}

TEST_F(StablehloOps, ABrokenKernelFailsItsOpAndSavesIt) {
  const CommandResult r = ops((dir / "irs").string() + " --skip fft", "slice_off_by_one");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_EQ(ops_with("failed"), std::set<std::string>{"stablehlo.slice"}) << r.output;
  const nlohmann::json* slice = row("stablehlo.slice");
  ASSERT_NE(slice, nullptr);
  EXPECT_EQ((*slice)["stage"], "executed");
  EXPECT_EQ((*slice)["seen"], nlohmann::json{(dir / "irs" / "shlo_a.mlir").string() + ":5:5 @main"});
  EXPECT_TRUE(fs::exists(dir / "out" / "failing" / "stablehlo_slice_001.mtir")) << r.output;
  EXPECT_NE(r.output.find("stablehlo.slice [4,3] -> [4,2] f32 (failed: "), std::string::npos) << r.output;
}

TEST_F(StablehloOps, AFileThatDoesNotParseIsReportedAndTheOthersSwept) {
  std::ofstream(dir / "irs" / "shlo_bad.mlir") << "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                                                  "  %0 = stablehlo.add %a, : tensor<4xf32>\n";
  const CommandResult r = ops((dir / "irs").string() + " --only add");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("error: " + (dir / "irs" / "shlo_bad.mlir").string() + ":2:"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 passed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 file(s) did not parse"), std::string::npos) << r.output;
}

TEST(OpsHelp, SaysItTakesFoldersOfMtirAndMlirFiles) {
  const CommandResult r = meshtest::testing::run_meshtest("ops --help");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("*.mlir"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("*.mtir"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("folders"), std::string::npos) << r.output;
}

// --serialize dumps: only each case's frontend stage is read.
TEST_F(Ops, SweepsSerializeDumps) {
  const std::string dumps = (dir / "dumps").string();
  const CommandResult dumped = meshtest::testing::run_meshtest(
      "run --db '' --compile-only --serialize " + dumps + " mnist/image_classification/native-mlp-single_device-inference");
  ASSERT_EQ(dumped.status, 0) << dumped.output;
  const CommandResult r = ops(dumps);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("from 1 graph(s)"), std::string::npos) << r.output;
  EXPECT_EQ(ops_with("passed").count("linear"), 1u) << r.output;
}

}  // namespace
