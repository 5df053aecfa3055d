// The native loaders under test and what is published about each variant:
// exact trainable-parameter counts (PyTorch's sum(p.numel() for p in
// model.parameters()): BatchNorm running statistics are buffers, not
// parameters) and the logits shape at default options.
//   resnet18 / resnet50: torchvision.models.resnet18() / resnet50()
//   resnet_tiny: same code, BasicBlock [1,1,1,1], widths 16..128, 10 classes
//   bert_base: HF BertForMaskedLM(bert-base-uncased config), decoder tied:
//     embeddings  30522*768 + 512*768 + 2*768 + 2*768          =  23,837,184
//     12 layers * (4*(768*768+768) + 2*(768*3072) + 3072 + 768 + 4*768)
//               = 12 * 7,087,872                                =  85,054,464
//     MLM head    768*768+768 + 2*768 + 30522 (bias)            =     622,650
//     total                                                     = 109,514,298
//   bert_tiny (L=2, H=128, I=512): 3,972,864 + 2*198,272 + 47,290 = 4,416,698
//   mnist mlp: (784*512+512) + (512*512+512) + (512*10+10)       =     669,706
//   resnet34 / 101 / 152, mobilenet_v2, vit_b_16 / b_32 / l_16: the
//     torchvision model-card figures; vit_tiny: timm deit_tiny_patch16_224
//   bert_large: HF BertForMaskedLM(bert-large-uncased)          = 335,174,458
//   gpt2 / gpt2_medium: HF GPT2LMHeadModel (lm_head tied)        = 124,439,808 / 354,823,168
//   llama_3_2_1b / 3b / 3_1_8b / 70b: HF LlamaForCausalLM num_parameters()
//     = 1,235,814,400 / 3,212,749,824 / 8,030,261,248 / 70,553,706,496
//   whisper encoders (HF WhisperEncoder of openai/whisper-{tiny,base,small}):
//     conv1 80*d*3+d, conv2 d*d*3+d, positions 1500*d, L layers of
//     (q,v,out d*d+d; k d*d; 2 LN; fc1/fc2 d*f+f, f*d+d), final LN
//     = 8,208,384 / 20,590,592 / 88,154,112
//   mixtral_8x7b: HF MixtralForCausalLM(Mixtral-8x7B)              = 46,702,792,704
//   unet: milesial UNet(3, 2, bilinear=True)                     =  17,263,042
//   *_tiny: the same formulas at the tiny sizes (see each loader).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/graph.h"

namespace meshtest::testing {

struct ModelCase {
  std::string dir;
  std::string variant;
  int64_t trainable_params;
  Shape logits_shape;  // default options
  std::string output = "logits";
  // Inputs without a batch dim (causal masks, RoPE tables).
  std::vector<std::string> unbatched_inputs = {};
};

inline const std::vector<std::string> kCausalInputs = {"attention_mask"};
inline const std::vector<std::string> kLlamaInputs = {"attention_mask", "rope_cos", "rope_sin"};

inline const std::vector<ModelCase>& model_cases() {
  static const std::vector<ModelCase> cases = {
      {"mnist/image_classification/native", "mlp", 669'706, {1, 10}},
      {"resnet/native", "resnet18", 11'689'512, {1, 1000}},
      {"resnet/native", "resnet50", 25'557'032, {1, 1000}},
      {"resnet/native", "resnet_tiny", 310'746, {1, 10}},
      {"bert/masked_lm/native", "bert_tiny", 4'416'698, {1, 128, 30522}},
      {"bert/masked_lm/native", "bert_base", 109'514'298, {1, 128, 30522}},
      {"bert/masked_lm/native", "bert_large", 335'174'458, {1, 128, 30522}},
      {"resnet/native", "resnet34", 21'797'672, {1, 1000}},
      {"resnet/native", "resnet101", 44'549'160, {1, 1000}},
      {"resnet/native", "resnet152", 60'192'808, {1, 1000}},
      {"mobilenet_v2/native", "mobilenet_v2", 3'504'872, {1, 1000}},
      {"mobilenet_v2/native", "mobilenet_v2_tiny", 250'922, {1, 10}},
      {"vit/native", "vit_b_16", 86'567'656, {1, 1000}},
      {"vit/native", "vit_b_32", 88'224'232, {1, 1000}},
      {"vit/native", "vit_l_16", 304'326'632, {1, 1000}},
      {"vit/native", "vit_tiny", 5'717'416, {1, 1000}},
      {"unet/native", "unet", 17'263'042, {1, 2, 256, 256}},
      {"unet/native", "unet_tiny", 270'906, {1, 2, 64, 64}},
      {"gpt2/causal_lm/native", "gpt2", 124'439'808, {1, 128, 50257}, "logits", kCausalInputs},
      {"gpt2/causal_lm/native", "gpt2_medium", 354'823'168, {1, 128, 50257}, "logits", kCausalInputs},
      {"gpt2/causal_lm/native", "gpt2_tiny", 6'960'768, {1, 128, 50257}, "logits", kCausalInputs},
      {"llama/causal_lm/native", "llama_3_2_1b", 1'235'814'400, {1, 128, 128256}, "logits", kLlamaInputs},
      {"llama/causal_lm/native", "llama_3_2_3b", 3'212'749'824, {1, 128, 128256}, "logits", kLlamaInputs},
      {"llama/causal_lm/native", "llama_3_1_8b", 8'030'261'248, {1, 128, 128256}, "logits", kLlamaInputs},
      {"llama/causal_lm/native", "llama_3_1_70b", 70'553'706'496, {1, 128, 128256}, "logits", kLlamaInputs},
      {"llama/causal_lm/native", "llama_tiny", 4'465'280, {1, 128, 32000}, "logits", kLlamaInputs},
      // 32 layers sharing layer 0's data, 4 tokens by default (issue 5's too-big-for-one-chip model).
      {"llama/causal_lm/native", "llama_8b_shared_layers", 7'110'660'096, {1, 4, 32000}, "logits", kLlamaInputs},
      {"mixtral/causal_lm/native", "mixtral_8x7b", 46'702'792'704, {1, 128, 32000}, "logits", kLlamaInputs},
      {"mixtral/causal_lm/native", "mixtral_small", 86'266'368, {1, 128, 32000}, "logits", kLlamaInputs},
      {"mixtral/causal_lm/native", "mixtral_tiny", 9'865'856, {1, 128, 32000}, "logits", kLlamaInputs},
      {"whisper/audio_asr/native", "whisper_tiny", 8'208'384, {1, 1500, 384}, "last_hidden_state"},
      {"whisper/audio_asr/native", "whisper_base", 20'590'592, {1, 1500, 512}, "last_hidden_state"},
      {"whisper/audio_asr/native", "whisper_small", 88'154'112, {1, 1500, 768}, "last_hidden_state"},
  };
  return cases;
}

inline void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.dir << ":" << c.variant; }

// BatchNorm running statistics are weights of the graph but buffers in PyTorch.
inline bool is_buffer_name(const std::string& name) {
  auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".running_mean") || ends_with(".running_var");
}

inline int64_t trainable_param_count(const Graph& graph) {
  int64_t n = 0;
  for (const Param* p : graph.weights()) {
    if (!is_buffer_name(p->name)) n += shape_numel(graph.type(p->value).shape);
  }
  return n;
}

}  // namespace meshtest::testing
