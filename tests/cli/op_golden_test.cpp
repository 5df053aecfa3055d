// Op-level golden through the `meshtest` binary: `run --op-golden DIR` writes
// one JSON line per device op; with a device kernel broken on purpose
// (MESHTEST_MUTANT) the first op past the per-op thresholds is the broken
// one, for several op kinds, and the console names it. A 1% scale inside a
// normalized network passes the model-level checks; --op-golden-check and
// YAML `op_golden: true` make the per-op check fail the case. On a mesh,
// every chip reports its ops.
#include <gtest/gtest.h>

#include <cmath>
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

const std::string kBert = "bert/masked_lm/native-bert_tiny-single_device-inference";
const std::string kBertFolder = "bert_masked_lm_native-bert_tiny-single_device-inference";
// vit_tiny's gelu sees inputs below -2.5, where tanh-GELU is many ulp from erf-GELU.
const std::string kVit = "vit/native-vit_tiny-single_device-inference";
const std::string kVitFolder = "vit_native-vit_tiny-single_device-inference";
const std::string kGpt2 = "gpt2/causal_lm/native-gpt2_tiny-single_device-inference";
const std::string kGpt2Folder = "gpt2_causal_lm_native-gpt2_tiny-single_device-inference";
const std::string kLlama = "llama/causal_lm/native-llama_tiny-single_device-inference";
const std::string kLlamaFolder = "llama_causal_lm_native-llama_tiny-single_device-inference";
// mixtral_tiny's router normalizes its top-k weights with a div.
const std::string kMixtral = "mixtral/causal_lm/native-mixtral_tiny-single_device-inference";
const std::string kMixtralFolder = "mixtral_causal_lm_native-mixtral_tiny-single_device-inference";
// Tensor parallel on the 8 chips of n300-llmbox: all_reduce over groups of 4.
const std::string kLlamaTpDecode = "llama/causal_lm/native-llama_tiny-tensor_parallel-decode-seq32-batch1";
const std::string kLlamaTpDecodeFolder = "llama_causal_lm_native-llama_tiny-tensor_parallel-decode-seq32-batch1";

class OpGolden : public ::testing::Test {
 protected:
  CommandResult run(const std::string& args, const std::string& mutant = "") const {
    return meshtest::testing::run_meshtest("run --isolation none --db '' " + args,
                                           mutant.empty() ? "" : "MESHTEST_MUTANT=" + mutant);
  }
  std::vector<nlohmann::json> rows(const std::string& folder) const {
    std::vector<nlohmann::json> out;
    std::ifstream in(dir / "og" / folder / "op_golden.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }
  std::vector<nlohmann::json> flagged(const std::string& folder) const {
    std::vector<nlohmann::json> out;
    for (const nlohmann::json& r : rows(folder)) {
      if (r.value("first_past_threshold", false)) out.push_back(r);
    }
    return out;
  }
  std::string og() const { return " --op-golden " + (dir / "og").string(); }

  const meshtest::testing::TestDir dir{"meshtest_op_golden_"};
};

TEST_F(OpGolden, OneLinePerDeviceOpAndNoneFlaggedOnAnHonestDevice) {
  const CommandResult r = run(kBert + og());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<nlohmann::json> all = rows(kBertFolder);
  ASSERT_GT(all.size(), 50u);
  std::set<std::string> gelu_layers;
  for (size_t i = 0; i < all.size(); ++i) {
    const nlohmann::json& row = all[i];
    EXPECT_EQ(row["index"].get<size_t>(), i);  // program order, one chip
    for (const char* key : {"op", "origin", "layer", "operand_shapes", "shape", "dtype", "status"}) {
      EXPECT_TRUE(row.contains(key)) << key << " in " << row.dump();
    }
    // The layer path from the loader's weight names (the op's own, or its producer's).
    if (row["op"] == "linear") {
      EXPECT_FALSE(row["layer"].get<std::string>().empty()) << row.dump();
    }
    if (row["op"] == "gelu") gelu_layers.insert(row["layer"].get<std::string>());
    if (row["status"] == "checked") {
      EXPECT_FALSE(row["past_threshold"].get<bool>()) << row.dump();
      // Elementwise and normalization bf16 results carry their ulp error: within round-to-nearest's half ulp.
      if (row["op"] == "gelu" || row["op"] == "add" || row["op"] == "layer_norm") {
        ASSERT_TRUE(row.contains("max_ulp")) << row.dump();
        EXPECT_LE(row["max_ulp"].get<double>(), 0.51) << row.dump();
      }
      // A normalization's errors average about a quarter ulp and lean neither way.
      if (row["op"] == "layer_norm") {
        EXPECT_NEAR(row["ulp_mean_abs"].get<double>(), 0.25, 0.01) << row.dump();
        EXPECT_LT(std::abs(row["ulp_bias"].get<double>()), 0.02) << row.dump();
      }
      EXPECT_TRUE(row.contains("pcc") && row.contains("atol") && row.contains("norm_ratio")) << row.dump();
    }
  }
  EXPECT_EQ(gelu_layers.count("bert.encoder.layer.0.intermediate.dense"), 1u);  // fed by that layer's linear
  EXPECT_TRUE(flagged(kBertFolder).empty());
  EXPECT_EQ(r.output.find("first op past"), std::string::npos) << r.output;
}

// On a mesh every chip reports its own ops (its shards), all checked; a
// collective on every chip against its group's reference (sums within half
// an ulp, gathers exact).
TEST_F(OpGolden, PerChipOnAMesh) {
  const CommandResult r = run("gpt2/causal_lm/native-gpt2_tiny-tensor_parallel-inference --arch n300-llmbox" + og());
  ASSERT_EQ(r.status, 0) << r.output;
  std::set<int> chips;
  int all_reduces = 0, all_gathers = 0;
  for (const nlohmann::json& row : rows("gpt2_causal_lm_native-gpt2_tiny-tensor_parallel-inference")) {
    chips.insert(row["chip"].get<int>());
    EXPECT_EQ(row["status"], "checked") << row.dump();
    if (row["op"] == "all_reduce") {
      ++all_reduces;
      EXPECT_LE(row["max_ulp"].get<double>(), 0.5) << row.dump();
    }
    if (row["op"] == "all_gather") {
      ++all_gathers;
      EXPECT_EQ(row["atol"].get<double>(), 0.0) << row.dump();
    }
    EXPECT_FALSE(row.value("past_threshold", true)) << row.dump();
  }
  EXPECT_EQ(chips, (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_GT(all_reduces, 0);
  EXPECT_GT(all_gathers, 0);
}

struct BrokenKernel {
  std::string mutant;
  std::string case_id;
  std::string folder;
  std::string op;  // the op the mutant breaks: the first flagged
};

void PrintTo(const BrokenKernel& k, std::ostream* out) { *out << k.mutant << " on " << k.case_id; }

class OpGoldenBrokenKernel : public OpGolden, public ::testing::WithParamInterface<BrokenKernel> {};

TEST_P(OpGoldenBrokenKernel, FlagsTheBrokenOpAsTheFirstPastItsThreshold) {
  const BrokenKernel& p = GetParam();
  const CommandResult r = run(p.case_id + og(), p.mutant);
  ASSERT_TRUE(r.status == 0 || r.status == 1) << r.output;
  const std::vector<nlohmann::json> first = flagged(p.folder);
  ASSERT_EQ(first.size(), 1u) << r.output;
  EXPECT_EQ(first[0]["op"], p.op) << first[0].dump();
  EXPECT_TRUE(first[0]["past_threshold"].get<bool>());
  // Every op before it is within its thresholds.
  for (const nlohmann::json& row : rows(p.folder)) {
    if (row["index"] == first[0]["index"]) break;
    EXPECT_FALSE(row.value("past_threshold", false)) << row.dump();
  }
  EXPECT_NE(r.output.find("first op past its per-op thresholds: " + first[0]["origin"].get<std::string>()),
            std::string::npos)
      << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Mutants, OpGoldenBrokenKernel,
    ::testing::Values(BrokenKernel{"gelu_scale_1pct", kBert, kBertFolder, "gelu"},
                      BrokenKernel{"softmax_scale_1pct", kLlama, kLlamaFolder,
                                   "softmax"},  // gpt2_tiny fuses its softmax (-O1)
                      BrokenKernel{"matmul_scale_1pct", kGpt2, kGpt2Folder, "matmul"},
                      BrokenKernel{"silu_scale_1pct", kLlama, kLlamaFolder, "silu"},
                      BrokenKernel{"rope_table_off_by_one", kLlama, kLlamaFolder, "mul"},
                      // a wrong formula PCC and the scale cannot see: the elementwise ulp bound
                      BrokenKernel{"gelu_tanh_for_exact", kVit, kVitFolder, "gelu"},
                      // fused composites, checked against the reference ops they fuse
                      BrokenKernel{"sdpa_mask_dropped", kBert, kBertFolder, "sdpa"},
                      BrokenKernel{"rms_norm_scale_5pct", kLlama, kLlamaFolder, "rms_norm"},
                      // approximations within an ulp per element: the normalizations' error spread
                      BrokenKernel{"rms_norm_fast_rsqrt", kLlama, kLlamaFolder, "rms_norm"},
                      BrokenKernel{"layer_norm_fast_rsqrt", kBert, kBertFolder, "layer_norm"},
                      BrokenKernel{"softmax_approx_exp", kLlama, kLlamaFolder, "softmax"},
                      // a quotient through a bf16 reciprocal: within 1.3 ulp, but errors average a third of one
                      BrokenKernel{"div_via_bf16_reciprocal", kMixtral, kMixtralFolder, "div"},
                      // a collective, against its group's f32 sum: partial sums rounded to bf16
                      BrokenKernel{"all_reduce_bf16_accumulation", kLlamaTpDecode + " --arch n300-llmbox",
                                   kLlamaTpDecodeFolder, "all_reduce"},
                      // a data movement, against its group's blocks: chunks gathered in the wrong order
                      BrokenKernel{"all_gather_chunk_order_rotated",
                                   "gpt2/causal_lm/native-gpt2_tiny-tensor_parallel-inference --arch n300-llmbox",
                                   "gpt2_causal_lm_native-gpt2_tiny-tensor_parallel-inference", "all_gather"}),
    [](const ::testing::TestParamInfo<BrokenKernel>& info) { return info.param.mutant; });

// gelu x1.01 inside bert_tiny: LayerNorm divides the scale out, so the model
// output passes (under an entry without op_golden); the per-op check fails
// the case naming gelu, from the command line or from the shipped YAML entry
// (the PR selection runs with `op_golden: true`).
TEST_F(OpGolden, CheckFailsACaseTheModelLevelChecksPass) {
  fs::create_directories(dir / "config");
  meshtest::testing::write_test_config(dir / "config" / "plain.yaml",
                                       {{kBert, {"status: EXPECTED_PASSING", "scale_tolerance: 0.003"}}});
  const std::string plain_config = " --config-dir " + (dir / "config").string();
  const CommandResult plain = run(kBert + plain_config, "gelu_scale_1pct");
  EXPECT_EQ(plain.status, 0) << plain.output;
  const CommandResult shipped = run(kBert, "gelu_scale_1pct");
  EXPECT_EQ(shipped.status, 1) << shipped.output;
  EXPECT_NE(shipped.output.find("(gelu)"), std::string::npos) << shipped.output;
  const CommandResult checked = run(kBert + " --op-golden-check", "gelu_scale_1pct");
  EXPECT_EQ(checked.status, 1) << checked.output;
  EXPECT_NE(checked.output.find("op-level golden: a device op is past its per-op thresholds (gelu)"), std::string::npos)
      << checked.output;
  EXPECT_NE(checked.output.find("first op past its per-op thresholds: op #"), std::string::npos) << checked.output;
  EXPECT_EQ(run(kBert + " --op-golden-check").status, 0);  // an honest device passes the check
}

// The check from YAML: op_golden: true, and its thresholds op_scale_tolerance.
TEST_F(OpGolden, YamlTurnsTheCheckOnWithItsThresholds) {
  const fs::path config = dir / "config";
  fs::create_directories(config);
  auto write_entry = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), {"status: EXPECTED_PASSING", "op_golden: true"});
    meshtest::testing::write_test_config(config / "c.yaml", {{kBert, extra}});
  };
  write_entry({});
  const std::string args = kBert + " --config-dir " + config.string();
  const CommandResult failed = run(args, "gelu_scale_1pct");
  EXPECT_EQ(failed.status, 1) << failed.output;
  EXPECT_NE(failed.output.find("(gelu)"), std::string::npos) << failed.output;
  // 1% on gelu's result is ~3.5 bf16 ulp: the elementwise ulp bound (2) sees it too.
  write_entry({"op_scale_tolerance: 0.02"});
  const CommandResult by_ulp = run(args, "gelu_scale_1pct");
  EXPECT_EQ(by_ulp.status, 1) << by_ulp.output;
  EXPECT_NE(by_ulp.output.find(" ulp"), std::string::npos) << by_ulp.output;
  // A per-element bound wider than 1% still leaves the error spread: every
  // element 1% off averages far more than rounding's quarter ulp.
  write_entry({"op_scale_tolerance: 0.02", "op_max_ulp: 8"});
  const CommandResult by_spread = run(args + og(), "gelu_scale_1pct");
  EXPECT_EQ(by_spread.status, 1) << by_spread.output;
  const std::vector<nlohmann::json> first = flagged(kBertFolder);
  ASSERT_EQ(first.size(), 1u) << by_spread.output;
  EXPECT_EQ(first[0]["op"], "gelu");
  const std::string note = first[0].value("note", "");
  EXPECT_NE(note.find("average"), std::string::npos) << note;    // the spread
  EXPECT_EQ(note.find("allowed 2"), std::string::npos) << note;  // not the default ulp bound: the YAML's 8 applies
}

}  // namespace
