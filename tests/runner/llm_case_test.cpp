// The LLM matrix on the built-in zoo's causal LMs (llama_tiny, mixtral_tiny,
// gpt2_tiny): the decode step fed the prefill's KV cache equals the last
// position of a full prefill of seq+1 tokens on the CPU golden (and feeding
// it no cache, or the new token's RoPE / position one step early, does not:
// the check can fail), and decode cases pass through run_case on a mesh with
// the cache sharded with the model.
#include <gtest/gtest.h>

#include <algorithm>

#include "comparators/metrics.h"
#include "core/sharding.h"
#include "discovery/discovery.h"
#include "runner/collection/matrix.h"
#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/decode_steps.h"
#include "runner/pipeline/inference_steps.h"
#include "runner/pipeline/parallel_setup.h"
#include "runtime/arch/arch_profile.h"
#include "runtime/reference/reference_executor.h"
#include "runtime/reference/reference_kernels.h"

namespace meshtest::runner {
namespace {

constexpr int64_t kSeq = 8;
constexpr int64_t kBatch = 2;

const discovery::Discovery& zoo() {
  static const discovery::Discovery d = discovery::discover({MESHTEST_MODELS_ROOT});
  return d;
}

const sdk::ModelLoader& loader(const std::string& dir) {
  for (const discovery::DiscoveredLoader& l : zoo().loaders) {
    if (l.dir == dir) return *l.loader;
  }
  throw std::runtime_error("no loader " + dir);
}

sdk::LoadOptions options(sdk::LmPhase phase, int64_t seq) {
  sdk::LoadOptions o;
  o.phase = phase;
  o.seq_len = seq;
  o.batch_size = kBatch;
  return o;
}

Tensor slice_range(const Tensor& t, int64_t axis, int64_t start, int64_t end) {
  return runtime::reference::slice(t, {{"axis", axis}, {"start", start}, {"end", end}, {"step", int64_t{1}}});
}

Tensor output(const Graph& g, const std::vector<Tensor>& outs, const std::string& name) {
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    if (g.outputs[i].name == name) return outs[i];
  }
  throw std::runtime_error("no output " + name);
}

// The CPU golden of one decode step after a prefill of kSeq tokens, and the
// last position of a prefill of the same kSeq + 1 tokens.
struct DecodeVsFull {
  Tensor decode_logits;  // [B, 1, V]
  Tensor full_last;      // [B, 1, V]
};

enum class CacheMutation { None, Dropped, PositionOneEarly };

DecodeVsFull decode_vs_full(const std::string& dir, const std::string& variant, CacheMutation mutation) {
  const sdk::ModelLoader& l = loader(dir);
  sdk::Model full = l.load_model(variant, options(sdk::LmPhase::Prefill, kSeq + 1));
  full.graph.materialize_weights();
  const sdk::Inputs full_inputs = l.load_inputs(variant, options(sdk::LmPhase::Prefill, kSeq + 1));
  const Tensor& ids = full_inputs.at("input_ids");  // [B, kSeq + 1]

  sdk::Model prefill = l.load_model(variant, options(sdk::LmPhase::Prefill, kSeq));
  prefill.graph.materialize_weights();
  sdk::Inputs prefill_inputs = l.load_inputs(variant, options(sdk::LmPhase::Prefill, kSeq));
  prefill_inputs["input_ids"] = slice_range(ids, 1, 0, kSeq);

  // The decode step's own inputs; "position one early" builds them as if
  // kSeq - 1 tokens were cached (RoPE tables / learned position of kSeq - 1).
  const int64_t position = mutation == CacheMutation::PositionOneEarly ? kSeq - 1 : kSeq;
  sdk::Model decode = l.load_model(variant, options(sdk::LmPhase::Decode, kSeq));
  decode.graph.materialize_weights();
  sdk::Inputs decode_inputs = l.load_inputs(variant, options(sdk::LmPhase::Decode, kSeq));
  const sdk::Inputs shifted = l.load_inputs(variant, options(sdk::LmPhase::Decode, position));
  for (const char* table : {"rope_cos", "rope_sin"}) {
    if (shifted.count(table)) decode_inputs[table] = shifted.at(table);
  }
  decode_inputs["input_ids"] = slice_range(ids, 1, kSeq, kSeq + 1);
  sdk::Inputs cache = cache_inputs(prefill.graph, runtime::run_reference(prefill.graph, prefill_inputs));
  EXPECT_FALSE(cache.empty());
  for (auto& [name, t] : cache) {
    decode_inputs[name] = mutation == CacheMutation::Dropped ? Tensor(t.dtype(), t.shape()) : t;
  }
  if (mutation == CacheMutation::PositionOneEarly && dir.rfind("gpt2", 0) == 0) {
    // GPT-2's position is a row of wpe: the decode graph of kSeq - 1 past
    // positions takes row kSeq - 1; feed it the cache's first kSeq - 1 positions.
    decode = l.load_model(variant, options(sdk::LmPhase::Decode, kSeq - 1));
    decode.graph.materialize_weights();
    decode_inputs = l.load_inputs(variant, options(sdk::LmPhase::Decode, kSeq - 1));
    decode_inputs["input_ids"] = slice_range(ids, 1, kSeq, kSeq + 1);
    for (auto& [name, t] : cache) decode_inputs[name] = slice_range(t, 2, 1, kSeq);
  }
  const std::vector<Tensor> decoded = runtime::run_reference(decode.graph, decode_inputs);
  const std::vector<Tensor> full_out = runtime::run_reference(full.graph, full_inputs);
  return {output(decode.graph, decoded, "logits"), slice_range(output(full.graph, full_out, "logits"), 1, kSeq, kSeq + 1)};
}

struct Family {
  std::string dir;
  std::string variant;
};

const Family kFamilies[] = {{"llama/causal_lm/native", "llama_tiny"},
                            {"mixtral/causal_lm/native", "mixtral_tiny"},
                            {"gpt2/causal_lm/native", "gpt2_tiny"}};

double max_abs_diff(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.to_f32_vector();
  const std::vector<float> y = b.to_f32_vector();
  EXPECT_EQ(x.size(), y.size());
  double m = 0;
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) m = std::max(m, static_cast<double>(std::abs(x[i] - y[i])));
  return m;
}

TEST(LlmDecode, WithTheCacheEqualsTheLastPositionOfAFullPrefill) {
  for (const Family& f : kFamilies) {
    const DecodeVsFull r = decode_vs_full(f.dir, f.variant, CacheMutation::None);
    EXPECT_EQ(r.decode_logits.shape(), r.full_last.shape()) << f.variant;
    EXPECT_LT(max_abs_diff(r.decode_logits, r.full_last), 1e-4) << f.variant;
  }
}

// The check above can fail: without the cache, or one position early, the
// decode step is not the full prefill's last position.
TEST(LlmDecode, ADroppedCacheOrAnOffByOnePositionDiffers) {
  for (const Family& f : kFamilies) {
    for (CacheMutation m : {CacheMutation::Dropped, CacheMutation::PositionOneEarly}) {
      const DecodeVsFull r = decode_vs_full(f.dir, f.variant, m);
      EXPECT_GT(max_abs_diff(r.decode_logits, r.full_last), 1e-3) << f.variant << " mutation " << static_cast<int>(m);
    }
  }
}

const TestCase& lm_case(const std::vector<TestCase>& cases, const std::string& id) {
  const auto it = std::find_if(cases.begin(), cases.end(), [&](const TestCase& c) { return c.id == id; });
  if (it == cases.end()) throw std::runtime_error("no case " + id);
  return *it;
}

reports::CaseResult run_on(const std::string& arch, const std::string& id) {
  static const std::vector<TestCase> cases = build_matrix(zoo(), {});
  PipelineOptions o;
  o.arch = runtime::arch_profile(arch);
  o.chip = o.arch.chip;
  o.compile.use_cache = false;
  return run_case(lm_case(cases, id), o);
}

TEST(LlmDecode, ShardedDecodePassesOnAMesh) {
  for (const char* id : {"llama/causal_lm/native-llama_tiny-tensor_parallel-decode-seq32-batch1",
                         "mixtral/causal_lm/native-mixtral_tiny-data_tensor_parallel-decode-seq32-batch1",
                         "gpt2/causal_lm/native-gpt2_tiny-data_parallel-decode-seq32-batch1"}) {
    const reports::CaseResult r = run_on("n300-llmbox", id);
    EXPECT_EQ(r.outcome, reports::Outcome::Passed) << id << ": " << r.error_message;
    EXPECT_NE(r.mesh, "1x1") << id;
    // Split heads meet in all_reduces; data parallel inference needs none.
    if (std::string(id).find("data_parallel") == std::string::npos) {
      EXPECT_GT(r.collectives_executed, 0) << id;
    }
  }
}

TEST(LlmDecode, OnOneChipTheMeshStrategiesSkipWithAReason) {
  const reports::CaseResult r = run_on("n150", "llama/causal_lm/native-llama_tiny-fsdp-decode-seq32-batch1");
  EXPECT_EQ(r.outcome, reports::Outcome::Skipped);
  EXPECT_NE(r.reason.find("at least 2 chips"), std::string::npos) << r.reason;
  const reports::CaseResult one = run_on("n150", "gpt2/causal_lm/native-gpt2_tiny-single_device-decode-seq32-batch1");
  EXPECT_EQ(one.outcome, reports::Outcome::Passed) << one.error_message;
  EXPECT_EQ(one.sequence_length, 32);
  EXPECT_EQ(one.batch_size, 1);
}

// The cache's layout is part of the sharding: the decode step takes
// past_key_values.* split as the prefill left present.* (heads over "model"
// under tensor parallel, batch over the data axes under data parallel).
TEST(LlmDecode, TheCacheEntersInThePrefillsLayout) {
  static const std::vector<TestCase> cases = build_matrix(zoo(), {});
  const runtime::ArchProfile box = runtime::arch_profile("n300-llmbox");
  struct Want {
    const char* id;
    NamedPartitionSpec cache;
  };
  for (const Want& w : {Want{"llama/causal_lm/native-llama_tiny-tensor_parallel-decode-seq32-batch1",
                             {{}, {"model"}, {}, {}}},
                        Want{"llama/causal_lm/native-llama_tiny-data_tensor_parallel-decode-seq32-batch1",
                             {{"batch"}, {"model"}, {}, {}}},
                        Want{"gpt2/causal_lm/native-gpt2_tiny-data_parallel-decode-seq32-batch1",
                             {{"rows", "cols"}, {}, {}, {}}}}) {
    const TestCase& c = lm_case(cases, w.id);
    sdk::LoadOptions o = options(sdk::LmPhase::Prefill, 32);
    o.batch_size = 1;
    const CaseLayout layout = case_layout(c, box);
    const sdk::LoadOptions scaled = model_load_options(layout, o);
    const sdk::Model prefill = c.loader->loader->load_model(c.info.variant, scaled);
    sdk::Inputs prefill_inputs = c.loader->loader->load_inputs(c.info.variant, o);
    const ParallelPlan prefill_plan = prepare_parallel(layout, prefill, prefill_inputs);
    o.phase = sdk::LmPhase::Decode;
    const sdk::Model decode = c.loader->loader->load_model(c.info.variant, model_load_options(layout, o));
    sdk::Inputs decode_inputs = c.loader->loader->load_inputs(c.info.variant, o);
    const ParallelPlan decode_plan = prepare_parallel(layout, decode, decode_inputs);
    const auto merged = decode_sharding(*decode_plan.sharding, prefill.graph, *prefill_plan.sharding);
    for (const char* name : {"past_key_values.0.key", "past_key_values.1.value"}) {
      ASSERT_TRUE(merged->specs.count(name)) << w.id << " " << name;
      EXPECT_EQ(merged->specs.at(name), w.cache) << w.id << " " << name;
    }
  }
}

TEST(LlmLoadOptions, YamlSequenceAndBatchForOrdinaryIdsTheIdsAxesForTheMatrix) {
  TestCase plain;
  plain.expectation.seq_len = 16;
  plain.expectation.batch_size = 3;
  EXPECT_EQ(inference_load_options(plain).seq_len, 16);
  EXPECT_EQ(inference_load_options(plain).batch_size, 3);
  EXPECT_EQ(inference_load_options(plain).phase, sdk::LmPhase::Full);
  TestCase lm = plain;
  lm.lm = LmAxes{sdk::LmPhase::Decode, 64, 2};
  EXPECT_EQ(inference_load_options(lm).seq_len, 64);
  EXPECT_EQ(inference_load_options(lm).batch_size, 2);
  EXPECT_EQ(inference_load_options(lm).phase, sdk::LmPhase::Decode);
}

}  // namespace
}  // namespace meshtest::runner
