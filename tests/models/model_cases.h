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
};

inline const std::vector<ModelCase>& model_cases() {
  static const std::vector<ModelCase> cases = {
      {"mnist/image_classification/native", "mlp", 669'706, {1, 10}},
      {"resnet/native", "resnet18", 11'689'512, {1, 1000}},
      {"resnet/native", "resnet50", 25'557'032, {1, 1000}},
      {"resnet/native", "resnet_tiny", 310'746, {1, 10}},
      {"bert/masked_lm/native", "bert_tiny", 4'416'698, {1, 128, 30522}},
      {"bert/masked_lm/native", "bert_base", 109'514'298, {1, 128, 30522}},
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
