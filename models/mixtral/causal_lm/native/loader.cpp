// Mixtral causal language models, Hugging Face MixtralForCausalLM
// architecture and parameter names: the LLaMA-style decoder
// (models/common/llama_decoder.h: RMSNorm, RoPE theta 1e6, GQA, untied
// lm_head) with a sparse mixture of 8 SwiGLU experts, top-2 routing, in every
// layer (models/common/moe.h):
//   mixtral_8x7b   L=32, H=4096, 32 heads / 8 kv, I=14336 (46.7B; compile-only)
//   mixtral_small  L=4,  H=512,  8 heads / 4 kv,  I=1024
//   mixtral_tiny   L=2,  H=128,  4 heads / 2 kv,  I=256
// vocab 32000, rms eps 1e-5, HF init N(0, 0.02) for every weight but the
// trained-looking RMSNorm weights and query/key (models/common/init.h).
// Options: batch_size (1), seq_len (128, at most 32768), num_layers, phase
// (prefill / decode with a KV cache, models/common/kv_cache.h).
#include <string>

#include "models/common/init.h"
#include "models/common/llama_decoder.h"
#include "models/common/load_options.h"
#include "models/common/moe.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "mixtral/causal_lm/native";
constexpr int64_t kMaxPositions = 32768;
constexpr int64_t kDefaultSeqLen = 128;
constexpr int64_t kVocab = 32000;
constexpr int64_t kExperts = 8;
constexpr int64_t kTopK = 2;

struct MixtralConfig {
  const char* name;
  int64_t layers, hidden, heads, kv_heads, intermediate;
};

constexpr MixtralConfig kConfigs[] = {
    {"mixtral_8x7b", 32, 4096, 32, 8, 14336},
    {"mixtral_small", 4, 512, 8, 4, 1024},
    {"mixtral_tiny", 2, 128, 4, 2, 256},
};

constexpr LoaderFamily kFamily{kLoader, "mixtral", "priority", "nlp_causal_lm", "huggingface"};

class MixtralLoader final : public LlamaStyleLoader<MixtralConfig> {
 public:
  MixtralLoader() : LlamaStyleLoader(kConfigs, kFamily, {kDefaultSeqLen, kMaxPositions}) {}

 protected:
  DecoderConfig decoder(const MixtralConfig& c) const override {
    return gqa_decoder_config(c.layers, c.hidden, c.heads, c.kv_heads, kVocab, false, {0, 1e6, std::nullopt});
  }

  // Sparse mixture of experts: router, top-2 of 8 SwiGLU experts.
  ValueId feed_forward(const MixtralConfig& c, const DecoderConfig& d, LayerContext& ctx, const std::string& prefix,
                       ValueId h) const override {
    const MoeSpec moe{kExperts, kTopK, c.intermediate, init::normal(0.0, d.init_std)};
    return sparse_moe(ctx, join_name(prefix, "block_sparse_moe"), h, moe);
  }

  // Every expert is split across the chips of the "model" axis (w1/w3
  // column-parallel, w2 row-parallel); the router stays replicated.
  std::vector<ShardRule> feed_forward_shard_rules() const override {
    return {{".w1.weight", column_parallel_weight()},
            {".w3.weight", column_parallel_weight()},
            {".w2.weight", row_parallel_weight()}};
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::MixtralLoader)
