// Whole-binary tests: the `meshtest` executable on the built-in zoo and on
// fixture loaders that fail on purpose, checking output, exit status and the
// JUnit file.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/common/cli_fixture.h"

namespace {

namespace fs = std::filesystem;

using Result = meshtest::testing::CommandResult;

using meshtest::testing::run_meshtest;

std::string read_file(const fs::path& p) { return meshtest::testing::read_text_file(p.string()); }

using meshtest::testing::count_occurrences;
size_t count(const std::string& text, const std::string& needle) { return count_occurrences(text, needle); }

class Cli : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir / "empty_config"); }
  std::string db() const { return "--db " + (dir / "results.db").string(); }

  const meshtest::testing::TestDir dir{"meshtest_cli_"};
};

const std::string kFixtures = std::string("--models-root ") + MESHTEST_FIXTURE_ROOT;

TEST_F(Cli, HelpListsSubcommands) {
  const Result r = run_meshtest("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("collect"), std::string::npos);
  EXPECT_NE(r.output.find("run"), std::string::npos);
}

TEST_F(Cli, CollectListsTheZoo) {
  const Result r = run_meshtest("collect");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* id : {"mnist/image_classification/native-mlp-single_device-inference",
                         "resnet/native-resnet18-single_device-inference",
                         "resnet/native-resnet50-single_device-inference",
                         "resnet/native-resnet_tiny-single_device-inference",
                         "bert/masked_lm/native-bert_tiny-single_device-inference",
                         "bert/masked_lm/native-bert_base-single_device-inference"}) {
    EXPECT_NE(r.output.find(std::string(id) + "\n"), std::string::npos) << id << "\n" << r.output;
  }
  EXPECT_NE(r.output.find(" tests collected (0 deselected)\n"), std::string::npos) << r.output;
  const Result k = run_meshtest("collect -k 'resnet50 and single_device and inference'");
  EXPECT_NE(k.output.find("1/"), std::string::npos) << k.output;
}

TEST_F(Cli, SmallModelsPassEndToEndAndJunitRecordsThem) {
  const fs::path junit = dir / "junit.xml";
  const Result r =
      run_meshtest("run -k '(mnist or resnet_tiny or bert_tiny) and single_device and inference' --junitxml " +
                   junit.string() + " " + db());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("3 passed"), std::string::npos) << r.output;
  const std::string xml = read_file(junit);
  EXPECT_EQ(count(xml, "<testcase "), 3u) << xml;
  EXPECT_EQ(count(xml, "<failure"), 0u) << xml;
  EXPECT_NE(xml.find("name=\"bert/masked_lm/native-bert_tiny-single_device-inference\""), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"bringup_status\" value=\"&quot;PASSED&quot;\"/>"), std::string::npos);
}

// A program whose parameters are all inputs (a JAX print) has no weights:
// its training case is skipped with the reason, never a pass for nothing.
TEST_F(Cli, TrainingAModelWithoutWeightsIsSkippedWithTheReason) {
  const Result r = run_meshtest("run --force-run jax/mlp-single_device-training " + db());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("1 skipped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no weights to train"), std::string::npos) << r.output;
}

TEST_F(Cli, Resnet50PassesWithItsPcc) {
  const Result r = run_meshtest("run resnet/native-resnet50-single_device-inference " + db());
  ASSERT_EQ(r.status, 0) << r.output;
  const size_t at = r.output.find("PASSED   pcc=");
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_GE(std::stod(r.output.substr(at + 13, 8)), 0.99) << r.output;
}

// Golden/device independence: a perturbed device kernel must show up as a
// PCC failure (INCORRECT_RESULT), and since the case is EXPECTED_PASSING in
// the shipped config, the run exits 1.
TEST_F(Cli, PerturbedDeviceKernelFailsWithIncorrectResult) {
  const Result r = run_meshtest("run resnet/native-resnet_tiny-single_device-inference " + db(),
                       "MESHTEST_TEST_PERTURB_DEVICE_OP=conv2d");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("FAILED"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("INCORRECT_RESULT in phase compare"), std::string::npos) << r.output;
}

// Training: a tiny model's training case passes end to end (golden backward
// vs the compiler's autodiff on the device), and a deliberately wrong VJP rule
// (the compiler's test-only hook) fails it naming the parameter whose
// gradient is wrong; the case is EXPECTED_PASSING, so the run exits 1.
TEST_F(Cli, TinyModelTrainingPasses) {
  const Result r = run_meshtest("run -k bert_tiny -m 'training and single_device' " + db());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("PASSED"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bert/masked_lm/native-bert_tiny-single_device-training"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 passed"), std::string::npos) << r.output;
}

TEST_F(Cli, WrongVjpRuleFailsTheTrainingCaseNamingTheParameter) {
  const Result r =
      run_meshtest("run bert/masked_lm/native-bert_tiny-single_device-training " + db(),
                   "MESHTEST_TEST_WRONG_VJP=layer_norm");
  EXPECT_EQ(r.status, 1) << r.output;
  // The autodiff check blames the compiler's backward graph first, then the
  // device's gradient comparison names the parameter too.
  EXPECT_NE(r.output.find("INCORRECT_RESULT in phase compare: autodiff check: gradient of "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("; gradient of bert.embeddings.word_embeddings.weight: PCC "), std::string::npos) << r.output;
}

// The autodiff check (YAML autodiff_check, on by default for training): exact
// GELU differentiated with the tanh form's rule moves bert_tiny's gradients by
// 1.2e-4 relative L2, under bf16's noise (the device comparison passes), but
// far past the f32 difference of two correct backward passes (1e-6).
TEST_F(Cli, AutodiffCheckCatchesAVjpRuleUnderBf16Noise) {
  const std::string id = "bert/masked_lm/native-bert_tiny-single_device-training";
  const Result honest = run_meshtest("run " + id + " " + db());
  EXPECT_EQ(honest.status, 0) << honest.output;
  const Result caught = run_meshtest("run " + id + " " + db(), "MESHTEST_MUTANT=vjp_gelu_tanh_form");
  EXPECT_EQ(caught.status, 1) << caught.output;
  EXPECT_NE(caught.output.find("autodiff check: gradient of bert.encoder.layer."), std::string::npos) << caught.output;
  EXPECT_NE(caught.output.find("a VJP rule is wrong (the device is not involved)"), std::string::npos) << caught.output;
  meshtest::testing::write_test_config(dir / "empty_config" / "off.yaml",
                                       {{id, {"status: EXPECTED_PASSING", "autodiff_check: false"}}});
  const Result off = run_meshtest("run " + id + " --config-dir " + (dir / "empty_config").string() + " " + db(),
                         "MESHTEST_MUTANT=vjp_gelu_tanh_form");
  EXPECT_EQ(off.status, 0) << off.output;  // the device-level checks alone cannot see it
}

// `meshtest mutate`: a baseline plus one stored run per mutant, the kill
// matrix and score. linear_bias_ignored breaks both cases; conv2d_bias_ignored
// never runs (neither model has a convolution), so it survives.
TEST_F(Cli, MutatePrintsTheKillMatrixAndScoreAndWritesItAsJson) {
  const fs::path json = dir / "kill.json";
  const Result r = run_meshtest("mutate -k \"mnist or bert_tiny\" -m \"single_device and inference\" -j 2 "
                       "--mutants linear_bias_ignored,conv2d_bias_ignored --kill-matrix " +
                       json.string() + " " + db());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("kill matrix: 2 mutant(s) x 2 case(s)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("linear_bias_ignored  2/2     xx"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("linear_bias_ignored: [1] pcc "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("mutation score: 1/2 killed (50.0%)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("surviving mutants (1): conv2d_bias_ignored"), std::string::npos) << r.output;
  const std::string matrix = read_file(json);
  EXPECT_NE(matrix.find("\"killed\": 1"), std::string::npos) << matrix;
  EXPECT_NE(matrix.find("\"total\": 2"), std::string::npos) << matrix;
  EXPECT_EQ(count(matrix, "\"run_id\": \"mutate-"), 2u) << matrix;
  // Every run is in the store like any other run.
  const Result history = run_meshtest("history mnist/image_classification/native-mlp-single_device-inference " + db());
  EXPECT_EQ(count(history.output, "mutate-"), 3u) << history.output;
}

TEST_F(Cli, UnknownMutantIsAUsageErrorListingTheKnownOnes) {
  const Result env = run_meshtest("collect -k mnist", "MESHTEST_MUTANT=no_such_mutant");
  EXPECT_EQ(env.status, 2) << env.output;
  EXPECT_NE(env.output.find("MESHTEST_MUTANT='no_such_mutant' names no catalogued mutant; known: gelu_scale_1pct"),
            std::string::npos)
      << env.output;
  const Result option = run_meshtest("mutate -k mnist --mutants no_such_mutant " + db());
  EXPECT_EQ(option.status, 2) << option.output;
  EXPECT_NE(option.output.find("'no_such_mutant' names no catalogued mutant"), std::string::npos) << option.output;
}

TEST_F(Cli, OptimizerStepRunsAndABadOneIsAUsageError) {
  const Result ok = run_meshtest("run mnist/image_classification/native-mlp-single_device-training --optimizer-step sgd:0.1 " + db());
  EXPECT_EQ(ok.status, 0) << ok.output;
  EXPECT_NE(ok.output.find("== 1 passed"), std::string::npos) << ok.output;
  const Result bad = run_meshtest("run -k mlp --optimizer-step adam:0.1 " + db());
  EXPECT_EQ(bad.status, 2) << bad.output;
  EXPECT_NE(bad.output.find("expected sgd:LR"), std::string::npos) << bad.output;
}

// The case's "pcc" in a --json file of one case.
double json_pcc(const std::string& jsonl) {
  const std::string key = "\"pcc\":";
  const size_t at = jsonl.find(key);
  return at == std::string::npos ? -1.0 : std::stod(jsonl.substr(at + key.size()));
}

TEST_F(Cli, Bfp8WeightsLowerResnet50PccButKeepItAbove097) {
  const std::string id = "resnet/native-resnet50-single_device-inference --no-compile-cache " + db();
  const Result bf16 = run_meshtest("run " + id + " --json " + (dir / "bf16.jsonl").string());
  const Result bfp8 =
      run_meshtest("run " + id + " --experimental-weight-dtype bfp8 --json " + (dir / "bfp8.jsonl").string());
  ASSERT_EQ(bf16.status, 0) << bf16.output;
  ASSERT_EQ(bfp8.status, 0) << bfp8.output;
  const double pcc_bf16 = json_pcc(read_file(dir / "bf16.jsonl"));
  const double pcc_bfp8 = json_pcc(read_file(dir / "bfp8.jsonl"));
  // Measurably: bfp8_b's 7-bit shared-exponent mantissas at least double 1 - PCC.
  EXPECT_LT(1.0 - pcc_bf16, 0.5 * (1.0 - pcc_bfp8)) << pcc_bf16 << " vs " << pcc_bfp8;
  EXPECT_GT(pcc_bfp8, 0.97);
}

TEST_F(Cli, BrokenLoadersAreReportedNeverSilent) {
  const Result c = run_meshtest("collect " + kFixtures + " --config-dir " + (dir / "empty_config").string());
  ASSERT_EQ(c.status, 0) << c.output;
  EXPECT_NE(c.output.find("wrong_abi/native  [loader error:"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("loader ABI version 999"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("throws_listing/native  [loader error:"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("cannot read variant table"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("not_a_plugin/native  [loader error:"), std::string::npos) << c.output;

  const fs::path junit = dir / "junit.xml";
  const Result r = run_meshtest("run " + kFixtures + " -m 'single_device and inference' --config-dir " +
                       (dir / "empty_config").string() +
                       " --junitxml " + junit.string() + " " + db());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("3 error"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAILED_FE_COMPILATION in phase load_model (exception): checkpoint file is truncated"),
            std::string::npos)
      << r.output;
  const std::string xml = read_file(junit);
  EXPECT_EQ(count(xml, "<error "), 3u);
  EXPECT_EQ(count(xml, "<failure "), 1u);
}

// A repeatable option takes one value each time: the ids after --models-root
// DIR select (they were once taken as more models roots, selecting everything).
TEST_F(Cli, ModelsRootTakesOneFolderAndTheIdsAfterItSelect) {
  const Result r = run_meshtest("collect -q " + kFixtures + " wrong_abi/native throws_listing/native --config-dir " +
                       (dir / "empty_config").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("is not a directory"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\n2/"), std::string::npos) << r.output;  // "2/N tests collected"
  EXPECT_EQ(r.output.find("not_a_plugin/native"), std::string::npos) << r.output;
}

TEST_F(Cli, UsageAndConfigErrorsExitTwo) {
  Result r = run_meshtest("collect -m 'red and'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("-m expression: expected an identifier"), std::string::npos) << r.output;
  r = run_meshtest("run no/such-id " + db());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("no test case has the id 'no/such-id'"), std::string::npos) << r.output;
  r = run_meshtest("run --optimization-level 7");
  EXPECT_EQ(r.status, 2);
  meshtest::testing::write_test_config(dir / "bad_config" / "x.yaml", {{"a-single_device-inference", {"stauts: x"}}});
  r = run_meshtest("collect --config-dir " + (dir / "bad_config").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("x.yaml:3:5: unknown field 'stauts'"), std::string::npos) << r.output;
}

// backend_overrides follow the backend each command names: collect and show
// take --backend, and `run --backend pjrt` applies them in the run and in
// its workers (the xfail on pjrt makes the passing case an XPASS there).
TEST_F(Cli, BackendOverridesApplyUnderTheNamedBackend) {
  const std::string id = "mnist/image_classification/native-mlp-single_device-inference";
  const fs::path config = dir / "backend_config";
  meshtest::testing::write_test_config(
      config / "x.yaml",
      {{id, {"status: EXPECTED_PASSING", "backend_overrides:", "  pjrt: {status: KNOWN_FAILURE_XFAIL, reason: no op}"}}});
  const std::string common = id + " --config-dir " + config.string();
  Result r = run_meshtest("collect " + common + " --backend pjrt");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("    KNOWN_FAILURE_XFAIL · markers: "), std::string::npos) << r.output;
  r = run_meshtest("collect " + common);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("    EXPECTED_PASSING · markers: "), std::string::npos) << r.output;
  r = run_meshtest("show " + common + " --backend pjrt");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("KNOWN_FAILURE_XFAIL      " + (config / "x.yaml").string() + ":5 (backend_overrides.pjrt)\n"),
            std::string::npos)
      << r.output;
  r = run_meshtest("collect " + common + " --backend tt");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("error: --backend: unknown backend 'tt'; known backends: simulated, pjrt, pjrt:<platform>"),
            std::string::npos)
      << r.output;
#ifdef MESHTEST_PJRT_PLUGIN
  r = run_meshtest("run " + common + " --backend pjrt --pjrt-plugin " + MESHTEST_PJRT_PLUGIN + " " + db());
  EXPECT_EQ(r.status, 1) << r.output;  // strict xfail: a pass is unexpected
  EXPECT_NE(r.output.find("XPASSED  pcc="), std::string::npos) << r.output;
  r = run_meshtest("run " + common + " " + db());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("PASSED   pcc="), std::string::npos) << r.output;
#endif
}

// backend_overrides.pjrt:<platform> applies when the plugin's client reports
// that platform (meshtest's own plugin: "meshtest"), in the run and its
// workers; collect and show take the scoped name; a platform the plugin does
// not have stops the run.
TEST_F(Cli, PlatformScopedBackendOverridesFollowThePluginsPlatform) {
  const std::string id = "mnist/image_classification/native-mlp-single_device-inference";
  const fs::path config = dir / "platform_config";
  meshtest::testing::write_test_config(
      config / "x.yaml", {{id,
                           {"status: EXPECTED_PASSING", "backend_overrides:",
                            "  pjrt:meshtest: {status: KNOWN_FAILURE_XFAIL, reason: only on meshtest's plugin}",
                            "  pjrt:cuda: {status: EXCLUDE_MODEL, reason: only on cuda}"}}});
  const std::string common = id + " --config-dir " + config.string();
  Result r = run_meshtest("show " + common + " --backend pjrt:meshtest");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("(backend_overrides.pjrt:meshtest)"), std::string::npos) << r.output;
  r = run_meshtest("collect " + common + " --backend pjrt");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("    EXPECTED_PASSING · markers: "), std::string::npos) << r.output;
  r = run_meshtest("collect " + common + " --backend simulated:n150");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("only pjrt is scoped by platform"), std::string::npos) << r.output;
#ifdef MESHTEST_PJRT_PLUGIN
  const std::string plugin = std::string(" --pjrt-plugin ") + MESHTEST_PJRT_PLUGIN + " " + db();
  r = run_meshtest("run " + common + " --backend pjrt" + plugin);
  EXPECT_EQ(r.status, 1) << r.output;  // the meshtest block's strict xfail passes: unexpected
  EXPECT_NE(r.output.find("XPASSED  pcc="), std::string::npos) << r.output;
  r = run_meshtest("run " + common + " --backend pjrt:meshtest" + plugin);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("XPASSED  pcc="), std::string::npos) << r.output;
  r = run_meshtest("run " + common + " --backend pjrt:cuda" + plugin);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--backend pjrt:cuda, but PJRT plugin " + std::string(MESHTEST_PJRT_PLUGIN) +
                          "'s platform is 'meshtest'"),
            std::string::npos)
      << r.output;
#endif
}

}  // namespace
