// Mesh configs, shard specs and training specs of the zoo's loaders: the
// (1,N) / (2,N/2) / (N/m,m) / error rule, column/row-parallel splits by parameter name,
// and a training output that exists for every variant.
#include <gtest/gtest.h>

#include "core/error.h"
#include "tests/models/loader_plugin.h"
#include "tests/models/model_cases.h"

namespace meshtest::testing {
namespace {

using Mesh = std::pair<std::vector<int64_t>, std::vector<std::string>>;

Mesh mesh(const std::string& dir, const std::string& variant, int devices) {
  const auto config = make_loader(dir)->mesh_config(variant, devices);
  if (!config) throw std::runtime_error("no mesh config");
  return {config->shape, config->axis_names};
}

const std::vector<std::string> kAxes = {"batch", "model"};

TEST(MeshConfig, HeadsDividingNGiveOneByN) {
  EXPECT_EQ(mesh("gpt2/causal_lm/native", "gpt2", 4), (Mesh{{1, 4}, kAxes}));  // 12 heads
  EXPECT_EQ(mesh("bert/masked_lm/native", "bert_base", 2), (Mesh{{1, 2}, kAxes}));
  EXPECT_EQ(mesh("llama/causal_lm/native", "llama_3_1_8b", 8), (Mesh{{1, 8}, kAxes}));  // 8 kv heads
  EXPECT_EQ(mesh("vit/native", "vit_b_16", 1), (Mesh{{1, 1}, kAxes}));
}

TEST(MeshConfig, OtherwiseTwoByHalfN) {
  EXPECT_EQ(mesh("gpt2/causal_lm/native", "gpt2", 8), (Mesh{{2, 4}, kAxes}));  // 12 % 8 != 0, 12 % 4 == 0
  EXPECT_EQ(mesh("llama/causal_lm/native", "llama_3_2_1b", 16), (Mesh{{2, 8}, kAxes}));
  EXPECT_EQ(mesh("whisper/audio_asr/native", "whisper_tiny", 4), (Mesh{{2, 2}, kAxes}));  // 6 heads
}

TEST(MeshConfig, OtherwiseTheWidestModelAxisWithReplicatedRows) {
  EXPECT_EQ(mesh("whisper/audio_asr/native", "whisper_tiny", 8), (Mesh{{4, 2}, kAxes}));  // 6 heads: 2 of 8
  EXPECT_EQ(mesh("llama/causal_lm/native", "llama_tiny", 8), (Mesh{{4, 2}, kAxes}));      // 2 kv heads
  EXPECT_EQ(mesh("llama/causal_lm/native", "llama_3_2_1b", 32), (Mesh{{4, 8}, kAxes}));   // 8 kv heads
}

TEST(MeshConfig, OtherwiseAnErrorThatSaysWhy) {
  try {
    mesh("vit/native", "vit_tiny", 8);  // 3 heads: no common divisor with 8
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("3 attention heads"), std::string::npos) << what;
    EXPECT_NE(what.find("8 devices"), std::string::npos) << what;
  }
  EXPECT_THROW(mesh("gpt2/causal_lm/native", "gpt2", 5), Error);
}

sdk::ShardSpec shards(const std::string& dir, const std::string& variant) {
  auto loader = make_loader(dir);
  const sdk::Model model = loader->load_model(variant, {});
  const auto spec = loader->shard_spec(variant, model);
  if (!spec) throw std::runtime_error("no shard spec");
  // Every entry names a weight and gives one entry per dim.
  for (const auto& [name, partition] : *spec) {
    const Param* p = model.graph.find_param(name);
    EXPECT_NE(p, nullptr) << name;
    if (p != nullptr) {
      EXPECT_EQ(partition.size(), model.graph.type(p->value).shape.size()) << name;
    }
  }
  return *spec;
}

const sdk::PartitionSpec kColumn = {{"model"}, {}};
const sdk::PartitionSpec kRow = {{}, {"model"}};
const sdk::PartitionSpec kColumnWholeMesh = {{"batch", "model"}, {}};
const sdk::PartitionSpec kRowWholeMesh = {{}, {"batch", "model"}};

// The MLP splits over the whole mesh: on Llama 3.1 70B's 4x8 galaxy mesh (8
// kv heads split attention 8 ways) the feed-forward, 80% of the weights,
// splits 32 ways instead of repeating on each of the 4 rows.
TEST(ShardSpec, LlamaColumnParallelQkvGateUpRowParallelODown) {
  const sdk::ShardSpec s = shards("llama/causal_lm/native", "llama_tiny");
  for (const char* n : {"q_proj", "k_proj", "v_proj"}) {
    EXPECT_EQ(s.at(std::string("model.layers.1.self_attn.") + n + ".weight"), kColumn) << n;
  }
  EXPECT_EQ(s.at("model.layers.1.self_attn.o_proj.weight"), kRow);
  EXPECT_EQ(s.at("model.layers.0.mlp.gate_proj.weight"), kColumnWholeMesh);
  EXPECT_EQ(s.at("model.layers.0.mlp.up_proj.weight"), kColumnWholeMesh);
  EXPECT_EQ(s.at("model.layers.0.mlp.down_proj.weight"), kRowWholeMesh);
  EXPECT_EQ(s.at("model.embed_tokens.weight"), kColumn);
  EXPECT_EQ(s.count("model.layers.0.input_layernorm.weight"), 0u);  // replicated
  EXPECT_EQ(s.count("model.norm.weight"), 0u);
}

TEST(ShardSpec, Gpt2SplitsConv1DWeightsOnTheirOutputAndInputDims) {
  const sdk::ShardSpec s = shards("gpt2/causal_lm/native", "gpt2_tiny");
  EXPECT_EQ(s.at("transformer.h.0.attn.c_attn.weight"), kRow);  // Conv1D [in, out]: out is dim 1
  EXPECT_EQ(s.at("transformer.h.0.attn.c_attn.bias"), (sdk::PartitionSpec{{"model"}}));
  EXPECT_EQ(s.at("transformer.h.0.attn.c_proj.weight"), kColumn);  // row-parallel: in is dim 0
  EXPECT_EQ(s.at("transformer.h.1.mlp.c_fc.weight"), kRow);
  EXPECT_EQ(s.at("transformer.h.1.mlp.c_proj.weight"), kColumn);
  EXPECT_EQ(s.count("transformer.h.1.mlp.c_proj.bias"), 0u);
  EXPECT_EQ(s.count("transformer.wpe.weight"), 0u);
}

TEST(ShardSpec, BertAndMixtral) {
  const sdk::ShardSpec bert = shards("bert/masked_lm/native", "bert_tiny");
  EXPECT_EQ(bert.at("bert.encoder.layer.0.attention.self.query.weight"), kColumn);
  EXPECT_EQ(bert.at("bert.encoder.layer.0.attention.output.dense.weight"), kRow);
  EXPECT_EQ(bert.at("bert.encoder.layer.1.intermediate.dense.weight"), kColumn);
  EXPECT_EQ(bert.at("bert.encoder.layer.1.output.dense.weight"), kRow);
  EXPECT_EQ(bert.count("cls.predictions.transform.dense.weight"), 0u);

  const sdk::ShardSpec mixtral = shards("mixtral/causal_lm/native", "mixtral_tiny");
  for (int e = 0; e < 8; ++e) {
    const std::string p = "model.layers.1.block_sparse_moe.experts." + std::to_string(e);
    EXPECT_EQ(mixtral.at(p + ".w1.weight"), kColumn) << e;
    EXPECT_EQ(mixtral.at(p + ".w3.weight"), kColumn) << e;
    EXPECT_EQ(mixtral.at(p + ".w2.weight"), kRow) << e;
  }
  EXPECT_EQ(mixtral.count("model.layers.1.block_sparse_moe.gate.weight"), 0u);  // router replicated
  EXPECT_EQ(mixtral.at("model.layers.0.self_attn.o_proj.weight"), kRow);
}

TEST(TrainingSpec, EveryVariantNamesAnOutputOfItsGraph) {
  for (const ModelCase& c : model_cases()) {
    if (c.trainable_params > 2'000'000'000) continue;  // graph building only; keep the test quick
    auto loader = make_loader(c.dir);
    const std::string output = loader->training(c.variant).output;
    EXPECT_EQ(output, c.output) << c.variant;
  }
}

}  // namespace
}  // namespace meshtest::testing
