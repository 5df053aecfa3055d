// Llama 3 causal language models, Hugging Face LlamaForCausalLM architecture
// and parameter names (RMSNorm, RoPE theta 500000 with llama3 frequency
// scaling, SwiGLU MLP, grouped-query attention; see
// models/common/llama_decoder.h for inputs and outputs):
//   llama_3_2_1b  L=16, H=2048, 32 heads / 8 kv, I=8192,  tied, rope factor 32
//   llama_3_2_3b  L=28, H=3072, 24 heads / 8 kv, I=8192,  tied, rope factor 32
//   llama_3_1_8b  L=32, H=4096, 32 heads / 8 kv, I=14336, rope factor 8
//   llama_3_1_70b L=80, H=8192, 64 heads / 8 kv, I=28672, rope factor 8
//   llama_tiny    L=2,  H=128,   4 heads / 2 kv, I=352, vocab 32000, tied
// vocab 128256, rms eps 1e-5, HF init N(0, 0.02) for every weight.
// Options: batch_size (1), seq_len (128, at most 131072), num_layers.
#include <string>

#include "models/common/init.h"
#include "models/common/llama_decoder.h"
#include "models/common/load_options.h"
#include "models/common/mlp.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "llama/causal_lm/native";
constexpr int64_t kMaxPositions = 131072;
constexpr int64_t kDefaultSeqLen = 128;
constexpr int64_t kVocab = 128256;

struct LlamaConfig {
  const char* name;
  int64_t layers, hidden, heads, kv_heads, intermediate, vocab;
  bool tied;
  double rope_factor;
};

constexpr LlamaConfig kConfigs[] = {
    {"llama_3_2_1b", 16, 2048, 32, 8, 8192, kVocab, true, 32.0},
    {"llama_3_2_3b", 28, 3072, 24, 8, 8192, kVocab, true, 32.0},
    {"llama_3_1_8b", 32, 4096, 32, 8, 14336, kVocab, false, 8.0},
    {"llama_3_1_70b", 80, 8192, 64, 8, 28672, kVocab, false, 8.0},
    {"llama_tiny", 2, 128, 4, 2, 352, 32000, true, 8.0},
};

constexpr LoaderFamily kFamily{kLoader, "llama", "red", "nlp_causal_lm", "huggingface"};

class LlamaLoader final : public LlamaStyleLoader<LlamaConfig> {
 public:
  LlamaLoader() : LlamaStyleLoader(kConfigs, kFamily, {kDefaultSeqLen, kMaxPositions}) {}

 protected:
  DecoderConfig decoder(const LlamaConfig& c) const override {
    DecoderConfig d;
    d.layers = c.layers;
    d.hidden = c.hidden;
    d.heads = c.heads;
    d.kv_heads = c.kv_heads;
    d.head_dim = c.hidden / c.heads;
    d.vocab = c.vocab;
    d.tied_embeddings = c.tied;
    d.rope = {d.head_dim, 500000.0, Llama3RopeScaling{c.rope_factor, 1.0, 4.0, 8192.0}};
    return d;
  }

  // SwiGLU MLP.
  ValueId feed_forward(const LlamaConfig& c, const DecoderConfig& d, LayerContext& ctx, const std::string& prefix,
                       ValueId h) const override {
    GatedMlpSpec ffn;
    ffn.intermediate = c.intermediate;
    ffn.init = init::normal(0.0, d.init_std);
    return gated_mlp(ctx, join_name(prefix, "mlp"), h, ffn);
  }

  // gate/up column-parallel, down row-parallel.
  std::vector<ShardRule> feed_forward_shard_rules() const override {
    return {{"mlp.gate_proj.weight", column_parallel_weight()},
            {"mlp.up_proj.weight", column_parallel_weight()},
            {"mlp.down_proj.weight", row_parallel_weight()}};
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::LlamaLoader)
