// The matrix: ids, markers (the design's full set), arch_overrides resolved
// for --arch, backend_overrides for --backend and emitc_overrides for
// --emitc, placeholders as cases.
#include "runner/collection/matrix.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "config/test_config.h"
#include "runner/collection/selection.h"

namespace meshtest::runner {
namespace {

discovery::Discovery zoo() {
  discovery::Discovery d;
  discovery::DiscoveredLoader resnet;
  resnet.dir = "resnet/native";
  resnet.variants = {{"resnet", "resnet50", "red", "cv_image_cls"}, {"resnet", "resnet18", "red", "cv_image_cls"}};
  discovery::DiscoveredLoader bert;
  bert.dir = "bert/masked_lm/native";
  bert.variants = {{"bert", "bert_base", "priority", "nlp_masked_lm"}};
  d.loaders = {bert, resnet};
  d.failures = {{"broken/native", "broken/native/loader.so", "dlopen failed"}};
  return d;
}

config::TestConfig config_from(const std::string& yaml) {
  config::TestConfig c;
  std::vector<config::Diagnostic> diags;
  config::load_test_config_text(yaml, "t.yaml", c, diags);
  EXPECT_TRUE(diags.empty()) << diags[0].to_string();
  return c;
}

const TestCase& find(const std::vector<TestCase>& cases, const std::string& id) {
  auto it = std::find_if(cases.begin(), cases.end(), [&](const TestCase& c) { return c.id == id; });
  EXPECT_NE(it, cases.end()) << id;
  return *it;
}

const std::string kResnet50 = "resnet/native-resnet50-single_device-inference";

// single_device cases: one per variant and run mode (other parallelisms depend on the loader).
size_t single_device_cases(const std::vector<TestCase>& cases) {
  return static_cast<size_t>(std::count_if(cases.begin(), cases.end(), [](const TestCase& c) {
    return c.loader != nullptr && c.parallelism == Parallelism::SingleDevice;
  }));
}

TEST(Matrix, DefaultMarkers) {
  const auto cases = build_matrix(zoo(), {});
  ASSERT_EQ(single_device_cases(cases), 3 * supported_run_modes().size());
  EXPECT_EQ(find(cases, kResnet50).markers,
            (std::vector<std::string>{"inference", "n150", "nightly", "p150", "red", "single_device", "unspecified"}));
  EXPECT_EQ(find(cases, "resnet/native-resnet50-single_device-training").markers,
            (std::vector<std::string>{"n150", "nightly", "p150", "red", "single_device", "training", "unspecified"}));
  EXPECT_EQ(find(cases, "broken/native").markers, std::vector<std::string>{"loader_error"});
}

TEST(Matrix, MarkersFromTheEntry) {
  const auto cases = build_matrix(zoo(), config_from(R"(test_config:
  resnet/native-resnet50-single_device-inference:
    status: KNOWN_FAILURE_XFAIL
    bringup_status: INCORRECT_RESULT
    supported_archs: [n300-llmbox, galaxy-wh-6u]
    markers: [weekly, push-ci]
    flaky: true
)"));
  EXPECT_EQ(find(cases, kResnet50).markers,
            (std::vector<std::string>{"flaky", "galaxy-wh-6u", "galaxy_wh_6u", "incorrect_result", "inference",
                                      "known_failure_xfail", "n300-llmbox", "n300_llmbox", "push-ci", "push_ci", "red",
                                      "single_device", "weekly"}));
}

TEST(Matrix, ArchOverridesResolveForTheTargetArch) {
  const config::TestConfig config = config_from(R"(test_config:
  resnet/native-resnet50-single_device-inference:
    status: EXPECTED_PASSING
    arch_overrides:
      p150: {status: NOT_SUPPORTED_SKIP, reason: "no p150 kernel", required_pcc: 0.9}
)");
  const auto n150_cases = build_matrix(zoo(), config, {"n150"});  // kept: find() returns a reference into it
  const TestCase& n150 = find(n150_cases, kResnet50);
  EXPECT_EQ(n150.expectation.status, config::TestStatus::ExpectedPassing);
  const auto p150_cases = build_matrix(zoo(), config, {"p150"});
  const TestCase& p150 = find(p150_cases, kResnet50);
  EXPECT_EQ(p150.expectation.status, config::TestStatus::NotSupportedSkip);
  EXPECT_EQ(p150.expectation.reason, "no p150 kernel");
  EXPECT_DOUBLE_EQ(*p150.expectation.required_pcc, 0.9);
  EXPECT_NE(std::find(p150.markers.begin(), p150.markers.end(), "not_supported_skip"), p150.markers.end());
}

TEST(Matrix, BackendOverridesResolveForTheTargetBackend) {
  const config::TestConfig config = config_from(R"(test_config:
  resnet/native-resnet50-single_device-inference:
    status: EXPECTED_PASSING
    backend_overrides:
      pjrt: {status: KNOWN_FAILURE_XFAIL, reason: "plugin lacks the fused conv"}
)");
  const auto is_xfail = [](const TestCase& c) {
    return c.expectation.status == config::TestStatus::KnownFailureXfail &&
           std::find(c.markers.begin(), c.markers.end(), "known_failure_xfail") != c.markers.end();
  };
  const auto simulated_cases = build_matrix(zoo(), config, {"n150", "simulated"});
  EXPECT_EQ(find(simulated_cases, kResnet50).expectation.status, config::TestStatus::ExpectedPassing);
  EXPECT_FALSE(is_xfail(find(simulated_cases, kResnet50)));
  const auto default_cases = build_matrix(zoo(), config, {"n150"});  // no backend named: simulated
  EXPECT_FALSE(is_xfail(find(default_cases, kResnet50)));
  const auto pjrt_cases = build_matrix(zoo(), config, {"n150", "pjrt"});
  const TestCase& pjrt = find(pjrt_cases, kResnet50);
  EXPECT_TRUE(is_xfail(pjrt));
  EXPECT_EQ(pjrt.expectation.reason, "plugin lacks the fused conv");
  // -m selects it (and the broken loader, which -m never deselects) only under pjrt.
  EXPECT_EQ(select_cases(pjrt_cases, {"", "known_failure_xfail", {}}).selected.size(), 2u);
  EXPECT_EQ(select_cases(simulated_cases, {"", "known_failure_xfail", {}, true}).selected.size(), 1u);
}

TEST(Matrix, EmitcOverridesResolveOnlyWithEmitc) {
  const config::TestConfig config = config_from(R"(test_config:
  resnet/native-resnet50-single_device-inference:
    status: EXPECTED_PASSING
    backend_overrides:
      pjrt: {reason: "plugin is slow"}
    emitc_overrides: {status: KNOWN_FAILURE_XFAIL, reason: "generated conv differs"}
)");
  const auto is_xfail = [](const TestCase& c) {
    return c.expectation.status == config::TestStatus::KnownFailureXfail &&
           std::find(c.markers.begin(), c.markers.end(), "known_failure_xfail") != c.markers.end();
  };
  for (const char* backend : {"simulated", "pjrt"}) {
    const auto plain_cases = build_matrix(zoo(), config, {"n150", backend});
    EXPECT_FALSE(is_xfail(find(plain_cases, kResnet50))) << backend;
    const auto emitc_cases = build_matrix(zoo(), config, {"n150", backend, true});
    const TestCase& emitc = find(emitc_cases, kResnet50);
    EXPECT_TRUE(is_xfail(emitc)) << backend;
    EXPECT_EQ(emitc.expectation.reason, "generated conv differs") << backend;  // after the backend's block
  }
}

TEST(Matrix, PlaceholdersAreCases) {
  const auto cases = build_matrix(zoo(), config_from(R"(PLACEHOLDER_MODELS:
  meta-llama/Llama-3.1-405B: {reason: "needs galaxy"}
)"));
  ASSERT_EQ(single_device_cases(cases), 3 * supported_run_modes().size());
  const TestCase& p = find(cases, "placeholder/meta-llama/llama-3.1-405b");
  EXPECT_TRUE(p.placeholder);
  EXPECT_EQ(p.expectation.bringup_status, config::BringupStatus::NotStarted);
  EXPECT_EQ(p.expectation.reason, "needs galaxy");
  EXPECT_EQ(p.markers, (std::vector<std::string>{"inference", "n150", "nightly", "not_started", "p150", "placeholder",
                                                 "red", "single_device", "unspecified"}));
  EXPECT_EQ(select_cases(cases, {"", "placeholder", {}}).selected.size(), 2u);  // and the broken loader
}

TEST(Matrix, NightlyCiSelection) {
  const auto cases = build_matrix(zoo(), config_from(R"(test_config:
  resnet/native-resnet50-single_device-inference: {status: EXPECTED_PASSING}
  resnet/native-resnet18-single_device-inference: {status: EXPECTED_PASSING, markers: [weekly]}
  bert/masked_lm/native-bert_base-single_device-inference: {status: EXPECTED_PASSING, supported_archs: [p150]}
)"));
  const Selection s = select_cases(cases, {"", "n150 and nightly and expected_passing", {}});
  ASSERT_EQ(s.selected.size(), 2u);  // resnet50, and the broken loader (loader errors ignore -m)
  EXPECT_EQ(s.selected[0]->id, kResnet50);
  EXPECT_EQ(s.selected[1]->id, "broken/native");
  EXPECT_EQ(s.deselected, cases.size() - 2);
}

TEST(Matrix, ExcludedModelsAreDeselectedEvenByExactId) {
  const auto cases = build_matrix(zoo(), config_from(R"(test_config:
  resnet/native-resnet50-single_device-inference: {status: exclude_model}
)"));
  const Selection s = select_cases(cases, {"", "", {kResnet50}});
  EXPECT_TRUE(s.selected.empty());
  EXPECT_EQ(s.deselected, cases.size());
}

// The LLM matrix: a causal LM's variant gets strategy x phase x seq x batch
// cases besides its inference/training ones; other tasks get none.
discovery::Discovery llm_zoo() {
  discovery::Discovery d = zoo();
  discovery::DiscoveredLoader gpt2;
  gpt2.dir = "gpt2/causal_lm/native";
  gpt2.variants = {{"gpt2", "gpt2_tiny", "priority", kCausalLmTask}};
  d.loaders.push_back(gpt2);
  return d;
}

const std::string kGpt2Decode = "gpt2/causal_lm/native-gpt2_tiny-fsdp-decode-seq128-batch1";

TEST(LlmMatrix, IdsCarryStrategyPhaseSequenceAndBatch) {
  EXPECT_EQ(make_lm_test_id("llama/causal_lm/native", "llama_tiny", Parallelism::TensorParallel,
                            {sdk::LmPhase::Decode, 32, 1}),
            "llama/causal_lm/native-llama_tiny-tensor_parallel-decode-seq32-batch1");
  const std::optional<LmIdTail> tail = parse_lm_id_tail("data_tensor_parallel-prefill-seq256-batch4");
  ASSERT_TRUE(tail);
  EXPECT_EQ(tail->parallelism, Parallelism::DataTensorParallel);
  EXPECT_EQ(tail->axes.phase, sdk::LmPhase::Prefill);
  EXPECT_EQ(tail->axes.seq_len, 256);
  EXPECT_EQ(tail->axes.batch_size, 4);
  EXPECT_FALSE(parse_lm_id_tail("tensor_parallel-inference"));
  EXPECT_FALSE(parse_lm_id_tail("fsdp-decode-seq0-batch1"));
  EXPECT_FALSE(parse_lm_id_tail("fsdp-decode-seqx-batch1"));
}

TEST(LlmMatrix, CausalLmsGetEveryStrategyPhaseAndSequenceLength) {
  const auto cases = build_matrix(llm_zoo(), {});
  size_t lm = 0;
  for (const TestCase& c : cases) {
    if (!c.lm) continue;
    ++lm;
    EXPECT_EQ(c.loader_dir, "gpt2/causal_lm/native") << c.id;  // resnet and bert are not causal LMs
  }
  // No loader object to ask for a mesh: the strategies that need one are not offered.
  EXPECT_EQ(lm, 3 * 2 * lm_sequence_lengths().size() * lm_batch_sizes().size());
  EXPECT_EQ(find(cases, kGpt2Decode).markers,
            (std::vector<std::string>{"decode", "fsdp", "n150", "nightly", "p150", "priority", "unspecified"}));
  // The ordinary ids stay as they were.
  find(cases, "gpt2/causal_lm/native-gpt2_tiny-single_device-inference");
  find(cases, "gpt2/causal_lm/native-gpt2_tiny-single_device-training");
}

TEST(LlmMatrix, KeywordAndMarkerSelection) {
  const auto cases = build_matrix(llm_zoo(), {});
  const Selection k = select_cases(cases, {"prefill or decode or fsdp or megatron", "", {}});
  size_t lm = 0;
  for (const TestCase& c : cases) lm += c.lm ? 1 : 0;
  EXPECT_EQ(k.selected.size(), lm + 1);  // and the one FSDP training case
  EXPECT_EQ(select_cases(cases, {"fsdp and training", "", {}}).selected.size(), 1u);
  const Selection m = select_cases(cases, {"seq128", "decode and fsdp", {}});
  ASSERT_EQ(m.selected.size(), 1u);
  EXPECT_EQ(m.selected[0]->id, kGpt2Decode);
  // The PR selection's `inference` marker leaves the LLM matrix out.
  const Selection pr = select_cases(cases, {"", "single_device and inference", {}});
  for (const TestCase* c : pr.selected) EXPECT_FALSE(c->lm) << c->id;
}

TEST(LlmMatrix, YamlEntriesAddAxesAndSetExpectations) {
  const auto cases = build_matrix(llm_zoo(), config_from(R"(test_config:
  gpt2/causal_lm/native-gpt2_tiny-single_device-decode-seq512-batch4: {status: EXPECTED_PASSING}
  gpt2/causal_lm/native-gpt2_tiny-fsdp-decode-seq128-batch1: {status: KNOWN_FAILURE_XFAIL, reason: r}
)"));
  const TestCase& extra = find(cases, "gpt2/causal_lm/native-gpt2_tiny-single_device-decode-seq512-batch4");
  ASSERT_TRUE(extra.lm);
  EXPECT_EQ(extra.lm->seq_len, 512);
  EXPECT_EQ(extra.lm->batch_size, 4);
  EXPECT_EQ(extra.expectation.status, config::TestStatus::ExpectedPassing);
  EXPECT_EQ(find(cases, kGpt2Decode).expectation.status, config::TestStatus::KnownFailureXfail);
}

}  // namespace
}  // namespace meshtest::runner
