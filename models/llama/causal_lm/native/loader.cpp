// Llama 3 causal language models, Hugging Face LlamaForCausalLM architecture
// and parameter names (RMSNorm, RoPE theta 500000 with llama3 frequency
// scaling, SwiGLU MLP, grouped-query attention; see
// models/common/llama_decoder.h for inputs and outputs):
//   llama_3_2_1b  L=16, H=2048, 32 heads / 8 kv, I=8192,  tied, rope factor 32
//   llama_3_2_3b  L=28, H=3072, 24 heads / 8 kv, I=8192,  tied, rope factor 32
//   llama_3_1_8b  L=32, H=4096, 32 heads / 8 kv, I=14336, rope factor 8
//   llama_3_1_70b L=80, H=8192, 64 heads / 8 kv, I=28672, rope factor 8
//   llama_tiny    L=2,  H=128,   4 heads / 2 kv, I=352, vocab 32000, tied
//   llama_8b_shared_layers  L=32, H=4096, 32 heads / 8 kv, I=14336, vocab
//                 32000, tied, 4 tokens by default: Llama 3.1 8B's decoder
//                 stack (14 GB of bf16 weights, more than one n150 chip's
//                 12 GiB DRAM) whose 32 layers hold the same data (layer 0's
//                 draw), so host RAM holds one layer (0.9 GB f32) while the
//                 device accounts every layer: it fails single_device with an
//                 out-of-memory result and fits tensor_parallel on n300-llmbox.
// vocab 128256, rms eps 1e-5, HF init N(0, 0.02) for every weight but the
// trained-looking RMSNorm weights and query/key (models/common/init.h).
// Options: batch_size (1), seq_len (128, at most 131072), num_layers, phase
// (prefill / decode with a KV cache, models/common/kv_cache.h).
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
    {"llama_8b_shared_layers", 32, 4096, 32, 8, 14336, 32000, true, 8.0},
};

constexpr std::string_view kSharedLayers = "llama_8b_shared_layers";
constexpr int64_t kSharedLayersSeqLen = 4;

// Every model.layers.N.* weight (N > 0) takes layer 0's data (shared storage).
void share_layer_zero(Graph& graph) {
  const std::string first = "model.layers.0.";
  for (Param& p : graph.params) {
    if (p.kind != ParamKind::Weight || p.name.rfind("model.layers.", 0) != 0) continue;
    const size_t dot = p.name.find('.', first.size() - 2);
    const std::string twin = first + p.name.substr(dot + 1);
    Param* zero = graph.find_param(twin);
    if (zero == nullptr) continue;
    if (zero->init) {
      zero->data = materialize(*zero, graph.type(zero->value));
      zero->init.reset();
    }
    if (zero != &p) {
      p.data = zero->data;
      p.init.reset();
    }
  }
}

sdk::LoadOptions shared_layers_options(sdk::LoadOptions o) {
  if (!o.seq_len) o.seq_len = kSharedLayersSeqLen;
  return o;
}

constexpr LoaderFamily kFamily{kLoader, "llama", "red", "nlp_causal_lm", "huggingface"};

class LlamaLoader final : public LlamaStyleLoader<LlamaConfig> {
 public:
  LlamaLoader() : LlamaStyleLoader(kConfigs, kFamily, {kDefaultSeqLen, kMaxPositions}) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    if (variant != kSharedLayers) return LlamaStyleLoader::load_model(variant, options);
    sdk::Model model = LlamaStyleLoader::load_model(variant, shared_layers_options(options));
    share_layer_zero(model.graph);
    return model;
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    return LlamaStyleLoader::load_inputs(variant, variant == kSharedLayers ? shared_layers_options(options) : options);
  }

 protected:
  DecoderConfig decoder(const LlamaConfig& c) const override {
    return gqa_decoder_config(c.layers, c.hidden, c.heads, c.kv_heads, c.vocab, c.tied,
                              {0, 500000.0, Llama3RopeScaling{c.rope_factor, 1.0, 4.0, 8192.0}});
  }

  // SwiGLU MLP.
  ValueId feed_forward(const LlamaConfig& c, const DecoderConfig& d, LayerContext& ctx, const std::string& prefix,
                       ValueId h) const override {
    GatedMlpSpec ffn;
    ffn.intermediate = c.intermediate;
    ffn.init = init::normal(0.0, d.init_std);
    return gated_mlp(ctx, join_name(prefix, "mlp"), h, ffn);
  }

  // gate/up column-parallel, down row-parallel, over the whole mesh.
  std::vector<ShardRule> feed_forward_shard_rules() const override {
    return {{"mlp.gate_proj.weight", column_parallel_weight_whole_mesh()},
            {"mlp.up_proj.weight", column_parallel_weight_whole_mesh()},
            {"mlp.down_proj.weight", row_parallel_weight_whole_mesh()}};
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::LlamaLoader)
