// The mutant catalogue (data only) and the MESHTEST_MUTANT switch.
#include "core/mutation.h"

#include <array>
#include <cstdlib>

#include "core/error.h"

namespace meshtest {

namespace {

using K = OpKind;
using S = MutantSite;
using M = MutantId;

constexpr std::array kCatalogue{
    MutantInfo{M::GeluScale1, "gelu_scale_1pct", "scale", S::DeviceKernel, K::Gelu, "gelu output x1.01"},
    MutantInfo{M::GeluScale5, "gelu_scale_5pct", "scale", S::DeviceKernel, K::Gelu, "gelu output x1.05"},
    MutantInfo{M::SoftmaxScale1, "softmax_scale_1pct", "scale", S::DeviceKernel, K::Softmax, "softmax output x1.01"},
    MutantInfo{M::SoftmaxScale5, "softmax_scale_5pct", "scale", S::DeviceKernel, K::Softmax, "softmax output x1.05"},
    MutantInfo{M::LinearScale1, "linear_scale_1pct", "scale", S::DeviceKernel, K::Linear, "linear output x1.01"},
    MutantInfo{M::LinearScale5, "linear_scale_5pct", "scale", S::DeviceKernel, K::Linear, "linear output x1.05"},
    MutantInfo{M::MatmulScale1, "matmul_scale_1pct", "scale", S::DeviceKernel, K::Matmul, "matmul output x1.01"},
    MutantInfo{M::MatmulScale5, "matmul_scale_5pct", "scale", S::DeviceKernel, K::Matmul, "matmul output x1.05"},
    MutantInfo{M::Conv2dScale1, "conv2d_scale_1pct", "scale", S::DeviceKernel, K::Conv2d, "conv2d output x1.01"},
    MutantInfo{M::Conv2dScale5, "conv2d_scale_5pct", "scale", S::DeviceKernel, K::Conv2d, "conv2d output x1.05"},
    MutantInfo{M::SiluScale1, "silu_scale_1pct", "scale", S::DeviceKernel, K::Silu, "silu output x1.01"},
    MutantInfo{M::SiluScale5, "silu_scale_5pct", "scale", S::DeviceKernel, K::Silu, "silu output x1.05"},
    MutantInfo{M::LayerNormScale1, "layer_norm_scale_1pct", "scale", S::DeviceKernel, K::LayerNorm,
               "layer_norm output x1.01"},
    MutantInfo{M::LayerNormScale5, "layer_norm_scale_5pct", "scale", S::DeviceKernel, K::LayerNorm,
               "layer_norm output x1.05"},
    MutantInfo{M::RmsNormScale5, "rms_norm_scale_5pct", "scale", S::DeviceKernel, K::RmsNorm,
               "rms_norm (fused composite) output x1.05"},
    MutantInfo{M::GlobalAvgPoolScale5, "global_avg_pool2d_scale_5pct", "scale", S::DeviceKernel, K::GlobalAvgPool2d,
               "global_avg_pool2d output x1.05"},
    MutantInfo{M::LinearBiasIgnored, "linear_bias_ignored", "param-ignored", S::DeviceKernel, K::Linear,
               "linear ignores its bias"},
    MutantInfo{M::Conv2dBiasIgnored, "conv2d_bias_ignored", "param-ignored", S::DeviceKernel, K::Conv2d,
               "conv2d ignores its bias"},
    MutantInfo{M::LayerNormBetaIgnored, "layer_norm_beta_ignored", "param-ignored", S::DeviceKernel, K::LayerNorm,
               "layer_norm ignores beta (shift 0)"},
    MutantInfo{M::LayerNormGammaIgnored, "layer_norm_gamma_ignored", "param-ignored", S::DeviceKernel, K::LayerNorm,
               "layer_norm ignores gamma (gain 1)"},
    MutantInfo{M::BatchNormMeanIgnored, "batch_norm_mean_ignored", "param-ignored", S::CompilerPass, K::BatchNorm,
               "decompose lowers batch_norm without subtracting the running mean"},
    MutantInfo{M::GeluTanhForExact, "gelu_tanh_for_exact", "formula", S::DeviceKernel, K::Gelu,
               "exact (erf) gelu computed with the tanh approximation"},
    MutantInfo{M::SoftmaxTemperature, "softmax_temperature_1_05", "formula", S::DeviceKernel, K::Softmax,
               "softmax of x / 1.05"},
    MutantInfo{M::LayerNormVarianceUnbiased, "layer_norm_variance_d_minus_1", "formula", S::DeviceKernel,
               K::LayerNorm, "layer_norm variance divides by d-1 instead of d"},
    MutantInfo{M::ReluLeaky, "relu_leaky", "formula", S::DeviceKernel, K::Relu,
               "relu lets negatives through with slope 0.01"},
    MutantInfo{M::SdpaMaskDropped, "sdpa_mask_dropped", "attention", S::DeviceKernel, K::Sdpa,
               "sdpa ignores its mask operand"},
    MutantInfo{M::SdpaMaskTransposed, "sdpa_mask_transposed", "attention", S::DeviceKernel, K::Sdpa,
               "sdpa reads its mask at (key, query) instead of (query, key) (self-attention, S == T)"},
    MutantInfo{M::RopeTableOffByOne, "rope_table_off_by_one", "attention", S::DeviceKernel, K::Mul,
               "mul by a rank-2 [S,D] table broadcast over batch dims (RoPE cos/sin) reads row s+1 (last wraps to 0)"},
    MutantInfo{M::ResidualAddDropped, "residual_add_dropped", "indexing", S::DeviceKernel, K::Add,
               "add of two same-shape operands returns the first (dropped residual)"},
    MutantInfo{M::SliceOffByOne, "slice_off_by_one", "indexing", S::DeviceKernel, K::Slice,
               "slice starts one element late along its axis (one early when it would run past the end)"},
    MutantInfo{M::ConcatOffByOne, "concat_off_by_one", "indexing", S::DeviceKernel, K::Concat,
               "concat writes every operand after the first one position early (last position repeated)"},
    MutantInfo{M::EmbeddingRowOffByOne, "embedding_row_off_by_one", "indexing", S::DeviceKernel, K::Embedding,
               "embedding looks up row id+1 (the last row wraps to 0)"},
    MutantInfo{M::TopkMaskOneShort, "topk_mask_one_short", "indexing", S::DeviceKernel, K::TopkMask,
               "topk_mask marks k-1 entries (MoE routes to one expert fewer) when k > 1"},
    MutantInfo{M::SoftmaxWrongAxis, "softmax_wrong_axis", "reduction", S::DeviceKernel, K::Softmax,
               "softmax normalizes over the axis before its own (when that axis is longer than 1)"},
    MutantInfo{M::ReduceMeanWrongCount, "reduce_mean_wrong_count", "reduction", S::DeviceKernel, K::ReduceMean,
               "reduce_mean divides by count+1"},
    MutantInfo{M::Bf16Truncation, "bf16_truncation", "numerics", S::DeviceNumerics, std::nullopt,
               "the device rounds f32 to bf16 by truncation instead of round-to-nearest-even"},
    MutantInfo{M::Bfp8ExponentShift, "bfp8_exponent_from_next_block", "numerics", S::DeviceNumerics, std::nullopt,
               "bfp8_b decode scales each block by the next block's shared exponent"},
    MutantInfo{M::AllReduceOneChipShort, "all_reduce_one_chip_short", "collective", S::Collective, K::AllReduce,
               "all_reduce sums every member of the group but the last"},
    MutantInfo{M::ReduceScatterOneChipShort, "reduce_scatter_one_chip_short", "collective", S::Collective,
               K::ReduceScatter, "reduce_scatter sums every member of the group but the last"},
    MutantInfo{M::VjpSoftmaxScaled, "vjp_softmax_x1_5", "vjp", S::VjpRule, K::Softmax,
               "softmax gradient x1.5"},
    MutantInfo{M::VjpGeluTanhForm, "vjp_gelu_tanh_form", "vjp", S::VjpRule, K::Gelu,
               "exact gelu differentiated with the tanh form's derivative"},
    MutantInfo{M::VjpLayerNormNoMeanTerm, "vjp_layer_norm_no_mean_term", "vjp", S::VjpRule, K::LayerNorm,
               "layer_norm input gradient without the mean(g) term"},
    MutantInfo{M::VjpMatmulTransposedOperand, "vjp_matmul_transposed_operand", "vjp", S::VjpRule, K::Matmul,
               "matmul gradient multiplies by a square operand without transposing it"},
};

static_assert(kCatalogue.size() == static_cast<size_t>(MutantId::VjpMatmulTransposedOperand),
              "one catalogue entry per MutantId");

constexpr bool catalogue_in_id_order() {
  for (size_t i = 0; i < kCatalogue.size(); ++i) {
    if (static_cast<size_t>(kCatalogue[i].id) != i + 1) return false;
  }
  return true;
}
static_assert(catalogue_in_id_order(), "kCatalogue lists mutants in MutantId order");

// The value of MESHTEST_MUTANT that names no mutant ("" when it is fine).
std::string g_unknown_value;

MutantId read_environment() {
  const char* value = std::getenv(kMutantEnv);
  if (value == nullptr || *value == '\0') return MutantId::None;
  if (const MutantInfo* info = find_mutant(value)) return info->id;
  g_unknown_value = value;
  return MutantId::None;
}

}  // namespace

namespace mutation_detail {
MutantId active = read_environment();
}  // namespace mutation_detail

std::string_view mutant_site_name(MutantSite site) {
  switch (site) {
    case MutantSite::DeviceKernel:
      return "device kernel";
    case MutantSite::DeviceNumerics:
      return "device numerics";
    case MutantSite::CompilerPass:
      return "compiler pass";
    case MutantSite::Collective:
      return "collective";
    case MutantSite::VjpRule:
      return "VJP rule";
  }
  return "?";
}

std::span<const MutantInfo> mutant_catalogue() { return kCatalogue; }

const MutantInfo& mutant_info(MutantId id) {
  if (id == MutantId::None) throw Error("mutant_info: no mutant is None");
  return kCatalogue[static_cast<size_t>(id) - 1];
}

const MutantInfo* find_mutant(std::string_view name) {
  for (const MutantInfo& info : kCatalogue) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string known_mutant_names() {
  std::string names;
  for (const MutantInfo& info : kCatalogue) {
    if (!names.empty()) names += ", ";
    names += info.name;
  }
  return names;
}

std::string_view active_mutant_name() {
  const MutantId id = active_mutant();
  return id == MutantId::None ? std::string_view() : mutant_info(id).name;
}

void check_mutant_environment() {
  if (g_unknown_value.empty()) return;
  throw Error(std::string(kMutantEnv) + "='" + g_unknown_value + "' names no catalogued mutant; known: " +
              known_mutant_names());
}

}  // namespace meshtest
