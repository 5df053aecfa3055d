// BERT for masked language modelling, Hugging Face BertForMaskedLM
// architecture and parameter names (post-LN encoder, exact erf GELU, no
// pooler, decoder weight tied to the word embeddings):
//   bert_tiny  L=2,  H=128, A=2,  I=512
//   bert_base  L=12, H=768, A=12, I=3072
//   bert_large L=24, H=1024, A=16, I=4096
// vocab 30522, 512 positions, 2 token types, layer_norm eps 1e-12, HF init
// (weights N(0, 0.02)), with trained-looking biases, norm parameters and query/key weights (models/common/init.h).
// Inputs: "input_ids" i64 [B,S], "token_type_ids" i64 [B,S], "attention_mask"
// [B,S] (1 keep / 0 pad; turned in-graph into the additive (1-m)*-10000 mask
// [B,1,1,S]). Output "logits" [B,S,30522]. Options: batch_size (1),
// seq_len (128, at most 512), num_layers (cuts the encoder down).
#include <string>

#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/loader_sdk.h"
#include "models/common/attention.h"
#include "models/common/causal_lm.h"
#include "models/common/init.h"
#include "models/common/layer_norm.h"
#include "models/common/linear.h"
#include "models/common/load_options.h"
#include "models/common/mlp.h"
#include "models/common/parallelism.h"
#include "models/common/variant_table.h"
#include "models/common/safetensors.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "bert/masked_lm/native";
constexpr int64_t kVocab = 30522;
constexpr int64_t kMaxPositions = 512;
constexpr int64_t kTypeVocab = 2;
constexpr double kLayerNormEps = 1e-12;
constexpr double kInitStd = 0.02;
constexpr int64_t kDefaultSeqLen = 128;
// Sample token ids avoid [PAD]/[unused*]/special tokens at the low end.
constexpr int64_t kTokenLow = 1000;
constexpr int64_t kTokenHigh = 30000;

struct BertConfig {
  const char* name;
  int64_t layers;
  int64_t hidden;
  int64_t heads;
  int64_t intermediate;
};

constexpr BertConfig kConfigs[] = {
    {"bert_tiny", 2, 128, 2, 512},
    {"bert_base", 12, 768, 12, 3072},
    {"bert_large", 24, 1024, 16, 4096},
};

constexpr LoaderFamily kFamily{kLoader, "bert", "priority", "nlp_masked_lm", "huggingface"};

SequenceDims dims(const sdk::LoadOptions& options) {
  return sequence_dims(options, kDefaultSeqLen, kMaxPositions, kLoader);
}

LinearInit hf_linear_init() { return {init::normal(0.0, kInitStd), init::bias(kInitStd)}; }

class BertLoader final : public TableLoader<BertConfig> {
 public:
  BertLoader() : TableLoader(kConfigs, kFamily) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    const BertConfig& c = config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const auto [batch, seq] = dims(options);
    const int64_t layers = option_in_range(options.num_layers, c.layers, 1, c.layers, "num_layers", kLoader);
    const int64_t hidden = c.hidden;
    GraphBuilder b(c.name);
    LayerContext ctx{b, c.name, dtype};

    const ValueId input_ids = b.input("input_ids", DType::I64, {batch, seq});
    const ValueId token_type_ids = b.input("token_type_ids", DType::I64, {batch, seq});
    const ValueId attention_mask = b.input("attention_mask", dtype, {batch, seq});

    // Embeddings: word + token_type + position, then LayerNorm.
    const Initializer emb_init = init::normal(0.0, kInitStd);
    const ValueId word_table = ctx.weight("bert.embeddings.word_embeddings.weight", {kVocab, hidden}, emb_init);
    const ValueId pos_table =
        ctx.weight("bert.embeddings.position_embeddings.weight", {kMaxPositions, hidden}, emb_init);
    const ValueId type_table =
        ctx.weight("bert.embeddings.token_type_embeddings.weight", {kTypeVocab, hidden}, emb_init);
    ValueId x = b.op(OpKind::Embedding, {input_ids, word_table});
    x = b.add(x, b.op(OpKind::Embedding, {token_type_ids, type_table}));
    x = b.add(x, b.slice(pos_table, 0, 0, seq));  // [S,H] broadcast over the batch
    x = layer_norm(ctx, "bert.embeddings.LayerNorm", x, kLayerNormEps);

    // Extended attention mask: (1 - mask) * -10000 as [B,1,1,S].
    ValueId mask = b.mul(b.sub(ctx.scalar(1.0), attention_mask), ctx.scalar(-10000.0));
    mask = b.reshape(mask, {batch, 1, 1, seq});

    AttentionSpec attn;
    attn.num_heads = c.heads;
    attn.init = hf_linear_init();
    MlpSpec ffn;
    ffn.intermediate = c.intermediate;
    ffn.act = Activation::Gelu;
    ffn.init = hf_linear_init();
    for (int64_t l = 0; l < layers; ++l) {
      const std::string layer = "bert.encoder.layer." + std::to_string(l);
      const ValueId attn_out = multi_head_self_attention(ctx, join_name(layer, "attention"), x, mask, attn);
      x = layer_norm(ctx, join_name(layer, "attention.output.LayerNorm"), b.add(attn_out, x), kLayerNormEps);
      const ValueId ffn_out = mlp(ctx, layer, x, ffn);
      x = layer_norm(ctx, join_name(layer, "output.LayerNorm"), b.add(ffn_out, x), kLayerNormEps);
    }

    // MLM head: transform (dense, gelu, LayerNorm), then the decoder, whose
    // weight is the word embedding table itself: linear(x, W) = x @ W^T.
    x = linear(ctx, "cls.predictions.transform.dense", x, hidden, hf_linear_init());
    x = activation(b, Activation::Gelu, x);
    x = layer_norm(ctx, "cls.predictions.transform.LayerNorm", x, kLayerNormEps);
    const ValueId decoder_bias = ctx.weight("cls.predictions.bias", {kVocab}, init::bias(kHeadBiasStd));
    x = b.linear(x, word_table, decoder_bias);
    b.output("logits", x);
    return finish_model(b, c.name);
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    const BertConfig& c = config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const auto [batch, seq] = dims(options);
    sdk::Inputs inputs;
    inputs["input_ids"] = token_ids({batch, seq}, input_seed(c.name, "input_ids"), kTokenLow, kTokenHigh);

    // Sentence A then sentence B: token type 1 from the middle on.
    Tensor types(DType::I64, {batch, seq});
    int64_t* t = types.data<int64_t>();
    // Padding: the last seq/8 positions are masked out.
    std::vector<float> mask(static_cast<size_t>(batch * seq), 1.0f);
    const int64_t first_pad = seq - seq / 8;
    for (int64_t i = 0; i < batch; ++i) {
      for (int64_t s = 0; s < seq; ++s) {
        t[i * seq + s] = s >= seq / 2 ? 1 : 0;
        if (s >= first_pad) mask[static_cast<size_t>(i * seq + s)] = 0.0f;
      }
    }
    inputs["token_type_ids"] = types;
    inputs["attention_mask"] = float_input(Tensor::from_f32({batch, seq}, mask), dtype);
    return inputs;
  }

  std::optional<sdk::MeshConfig> mesh_config(std::string_view variant, int num_devices) const override {
    return heads_mesh(config(variant).heads, num_devices, kLoader);
  }

  // query/key/value and intermediate column-parallel, the two output denses
  // row-parallel, the (tied) word embeddings split over the vocabulary.
  std::optional<sdk::ShardSpec> shard_spec(std::string_view variant, const sdk::Model& model) const override {
    config(variant);
    return shard_by_rules(model.graph, {{"attention.self.query.weight", column_parallel_weight()},
                                        {"attention.self.query.bias", column_parallel_bias()},
                                        {"attention.self.key.weight", column_parallel_weight()},
                                        {"attention.self.key.bias", column_parallel_bias()},
                                        {"attention.self.value.weight", column_parallel_weight()},
                                        {"attention.self.value.bias", column_parallel_bias()},
                                        {"attention.output.dense.weight", row_parallel_weight()},
                                        {"intermediate.dense.weight", column_parallel_weight()},
                                        {"intermediate.dense.bias", column_parallel_bias()},
                                        {"output.dense.weight", row_parallel_weight()},
                                        {"embeddings.word_embeddings.weight", column_parallel_weight()}});
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::BertLoader)
