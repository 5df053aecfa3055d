// `meshtest run` on multi-chip archs, as a new user tries it: tensor-parallel
// and data-parallel cases of a tiny model pass on n300-llmbox and print their
// mesh, collectives and per-chip memory; training runs data- and
// tensor-parallel and a wrong gradient rule fails it naming the parameter; a
// mesh case on a one-chip arch is skipped with a reason; an unknown arch is a
// usage error.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/common/cli_fixture.h"

namespace {

namespace fs = std::filesystem;

class MeshCli : public ::testing::Test {
 protected:
  meshtest::testing::CommandResult run(const std::string& args, const std::string& env = "") const {
    return meshtest::testing::run_meshtest(args + " --db " + (dir / "results.db").string(), env);
  }
  const meshtest::testing::TestDir dir{"meshtest-mesh-cli-"};
};

TEST_F(MeshCli, TensorParallelOnLlmboxPrintsMeshCollectivesAndPerChipMemory) {
  const auto r = run("run --arch n300-llmbox -m tensor_parallel -k 'llama_tiny and inference'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("PASSED"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("llama_tiny-tensor_parallel-inference"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mesh 4x2: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" collectives, "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("per-chip peak DRAM ["), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("leaked 0 B"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("== 1 passed"), std::string::npos) << r.output;
}

TEST_F(MeshCli, DataParallelOnLlmboxUsesTheArchMesh) {
  const auto r = run("run --arch n300-llmbox -m data_parallel -k 'bert_tiny and inference'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("mesh 2x4: 0 collectives"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("== 1 passed"), std::string::npos) << r.output;
}

TEST_F(MeshCli, TrainingRunsDataAndTensorParallelAndFsdp) {
  const auto r = run("run --arch n300 -k 'llama_tiny and training and not single_device'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("PASSED   pcc="), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("llama_tiny-data_parallel-training"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("llama_tiny-tensor_parallel-training"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("llama_tiny-fsdp-training"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mesh 1x2: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("== 3 passed"), std::string::npos) << r.output;
  // FSDP gathers each weight at its use and keeps the batch split: no fallback.
  EXPECT_EQ(r.output.find("sharding fallbacks"), std::string::npos) << r.output;
}

// FSDP training's weight gradients leave in their weights' split as one
// reduce_scatter each: the collective that reduces one chip short breaks it.
TEST_F(MeshCli, FsdpTrainingReduceScattersItsGradients) {
  const auto r = run("run --arch n300 llama/causal_lm/native-llama_tiny-fsdp-training",
                     "MESHTEST_MUTANT=reduce_scatter_one_chip_short");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("INCORRECT_RESULT in phase compare: gradient of "), std::string::npos) << r.output;
}

TEST_F(MeshCli, WrongVjpRuleFailsDataParallelTrainingNamingTheParameter) {
  const auto r = run("run --arch n300 bert/masked_lm/native-bert_tiny-data_parallel-training",
                     "MESHTEST_TEST_WRONG_VJP=layer_norm");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("INCORRECT_RESULT in phase compare: autodiff check: gradient of "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("; gradient of "), std::string::npos) << r.output;  // the device's gradients too
}

TEST_F(MeshCli, MeshCasesOnOneChipAreSkippedWithAReason) {
  const auto r = run("run --arch n150 -k 'llama_tiny and tensor_parallel and inference'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("SKIPPED"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("needs a mesh of at least 2 chips; arch n150 has 1"), std::string::npos) << r.output;
}

TEST_F(MeshCli, UnknownArchIsAUsageError) {
  const auto r = run("run --arch n301 -m tensor_parallel");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("unknown arch 'n301'"), std::string::npos) << r.output;
}

}  // namespace
