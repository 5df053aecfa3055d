// Deterministic weight initialisation for the native model zoo: how a
// parameter's seed is derived from its name, and the initializers the layer
// helpers use (PyTorch / Hugging Face conventions).
//
// Seeds
//   param_seed(variant, name) = hash_seed(variant + "/" + name), e.g.
//   hash_seed("resnet50/layer1.0.conv1.weight"). A parameter keeps its values
//   when other parameters are added or removed (num_layers cuts a model down
//   without changing the layers that stay), and two variants never share
//   weights by accident.
//   input_seed(variant, input) = hash_seed(variant + "/inputs/" + input), for
//   the sample inputs a loader returns from load_inputs().
//
// Initializers (the returned Initializer has seed 0: LayerContext::weight sets
// the seed from the parameter name)
//   kaiming_normal(fan)      normal(0, sqrt(2 / fan)): He init with ReLU gain,
//                            fan = fan_in or fan_out (torch.nn.init.kaiming_normal_)
//   torch_linear_default(in) uniform(-1/sqrt(in), 1/sqrt(in)): what nn.Linear
//                            does by default for weight and bias
//                            (kaiming_uniform_ with a = sqrt(5))
//   normal(mean, std), uniform(low, high), zeros(), ones()
//
// Trained-looking parameters. A freshly initialised network has zero biases
// and norm shifts, unit norm gains and near-uniform attention, so a device
// kernel that drops a bias, a gamma or a beta, or mis-computes attention,
// changes no output bit. The zoo gives these the spread a trained model has:
//   bias(std)                normal(0, std): every bias PyTorch / HF would zero.
//                            Inside a network std is the weights' scale (HF's
//                            0.02): a per-channel bias is the same at every
//                            position, and larger ones pile up in the residual
//                            stream until attention gradients cancel in bf16
//                            (whisper_tiny training: q_proj gradient PCC 0.90
//                            at 0.05, 0.997 at 0.02). An output head's bias,
//                            which feeds nothing, uses kHeadBiasStd.
//   norm_gain()              uniform(0.5, 1.5): LayerNorm / RMSNorm / BatchNorm weight
//   norm_shift()             normal(0, 0.2): LayerNorm / BatchNorm bias
//   query_key(hidden, s)     normal(0, sqrt(s / hidden)): query and key weights
//                            that give unit-variance inputs attention scores
//                            (q.k / sqrt(head_dim)) of standard deviation s;
//                            kAttentionScoreStd is the zoo's s
#pragma once

#include <cstdint>
#include <string_view>

#include "core/graph.h"
#include "core/tensor.h"

namespace meshtest::models {

uint64_t param_seed(std::string_view variant, std::string_view param_name);
uint64_t input_seed(std::string_view variant, std::string_view input_name);

// fan_in / fan_out of a weight in PyTorch layout: linear [out, in],
// conv [out, in/groups, kh, kw] (receptive field = kh * kw).
int64_t fan_in(const Shape& weight_shape);
int64_t fan_out(const Shape& weight_shape);

namespace init {
Initializer normal(double mean, double stddev);
Initializer uniform(double low, double high);
Initializer zeros();
Initializer ones();
Initializer kaiming_normal(int64_t fan);
Initializer torch_linear_default(int64_t in_features);
Initializer bias(double stddev);
Initializer norm_gain();
Initializer norm_shift();
Initializer query_key(int64_t hidden, double score_std);
}  // namespace init

// An output head's bias next to logits of std 1-2: dropping it moves them
// by about a third of their spread.
constexpr double kHeadBiasStd = 0.5;

// Attention scores of this spread make softmax pick out a few positions, as a
// trained model's do (a score std near 0 gives uniform attention).
constexpr double kAttentionScoreStd = 2.0;

// Decoder language models' attention logits (issue 33): a trained LLM's
// pre-softmax scores reach the tens (a few keys a query attends to almost
// alone: attention sinks, previous-token heads), so a softmax that skips the
// max subtraction or approximates exp away from 0 is exercised. Scores of
// this spread reach about +-13 over a 128-token sequence (std 4 and up fail
// llama_tiny tensor-parallel training on bf16 noise: an updated norm weight 1.021x).
constexpr double kLlmAttentionScoreStd = 3.0;

}  // namespace meshtest::models
