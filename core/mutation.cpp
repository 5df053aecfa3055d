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
    // Issue 33: the catalogue by classes.
    MutantInfo{M::RmsNormWeightIgnored, "rms_norm_weight_ignored", "param-ignored", S::DeviceKernel, K::RmsNorm,
               "rms_norm ignores its weight (gain 1)"},
    MutantInfo{M::SdpaScaleIgnored, "sdpa_scale_ignored", "param-ignored", S::DeviceKernel, K::Sdpa,
               "sdpa ignores its scale attribute (scores unscaled)"},
    MutantInfo{M::RmsNormMeanSubtracted, "rms_norm_mean_subtracted", "formula", S::DeviceKernel, K::RmsNorm,
               "rms_norm centres each row first (layer_norm's statistics without beta)"},
    MutantInfo{M::TanhHalfArgument, "tanh_half_argument", "formula", S::DeviceKernel, K::Tanh,
               "tanh computed as 2*sigmoid(x)-1 (= tanh(x/2)) instead of 2*sigmoid(2x)-1"},
    MutantInfo{M::SdpaMaskRowOffByOne, "sdpa_mask_row_off_by_one", "attention", S::DeviceKernel, K::Sdpa,
               "sdpa reads query q's mask row at q+1 (last row kept): a causal mask lets each query see one future key"},
    MutantInfo{M::SdpaScaleOneOverD, "sdpa_scale_1_over_d", "attention", S::DeviceKernel, K::Sdpa,
               "sdpa scales scores by scale^2 (1/d instead of 1/sqrt(d))"},
    MutantInfo{M::GqaKvHeadRotated, "gqa_kv_head_rotated", "attention", S::DeviceKernel, K::Matmul,
               "matmul broadcasting a size-1 group dim (grouped-query attention): query group g of KV head h reads "
               "KV head (h+g) mod heads"},
    MutantInfo{M::MaxPool2dWindowShifted, "max_pool2d_window_shifted", "indexing", S::DeviceKernel, K::MaxPool2d,
               "max_pool2d reads every window one row down (the last row repeated)"},
    MutantInfo{M::ReduceSumSkipsLast, "reduce_sum_skips_last_element", "reduction", S::DeviceKernel, K::ReduceSum,
               "reduce_sum over one axis stops one element short (loop bound n-1)"},
    MutantInfo{M::ReduceSumBf16Accumulation, "reduce_sum_bf16_accumulation", "accumulation", S::DeviceKernel,
               K::ReduceSum, "reduce_sum over one axis accumulates in bf16 (rounds after every add)"},
    MutantInfo{M::LinearBf16Accumulation, "linear_bf16_accumulation", "accumulation", S::DeviceKernel, K::Linear,
               "linear adds the partial sums of its 32-wide K tiles in bf16"},
    MutantInfo{M::Conv2dBf16Accumulation, "conv2d_bf16_accumulation", "accumulation", S::DeviceKernel, K::Conv2d,
               "conv2d (groups 1) adds the partial sums of its >= 32-long input-channel tiles in bf16"},
    MutantInfo{M::LayerNormBf16Statistics, "layer_norm_bf16_statistics", "accumulation", S::DeviceKernel,
               K::LayerNorm, "layer_norm accumulates its mean and variance sums in bf16"},
    MutantInfo{M::SoftmaxBf16Accumulation, "softmax_bf16_accumulation", "accumulation", S::DeviceKernel, K::Softmax,
               "softmax accumulates its denominator in bf16"},
    MutantInfo{M::AllReduceBf16Accumulation, "all_reduce_bf16_accumulation", "accumulation", S::Collective,
               K::AllReduce, "all_reduce of bf16 shards rounds to bf16 after every add"},
    MutantInfo{M::DivBf16Reciprocal, "div_via_bf16_reciprocal", "numerics", S::DeviceKernel, K::Div,
               "div computes a * bf16(1/b): the reciprocal rounded to bf16 before the multiply"},
    MutantInfo{M::Bfp8EncoderTruncates, "bfp8_encoder_truncates", "numerics", S::DeviceNumerics, std::nullopt,
               "the bfp8_b weight encoder truncates mantissas toward zero (shrinks weights) instead of rounding"},
    MutantInfo{M::BatchNormShiftUsesGamma, "batch_norm_shift_uses_gamma", "compiler-pass", S::CompilerPass,
               K::BatchNorm, "decompose folds batch_norm's shift as bias - mean*gamma (gamma, not gamma/sqrt(var+eps))"},
    MutantInfo{M::BatchNormEpsWrong, "batch_norm_eps_1e_3", "compiler-pass", S::CompilerPass, K::BatchNorm,
               "decompose folds batch_norm with eps 1e-3 instead of the op's"},
    MutantInfo{M::FuseLayerNormGammaBetaSwapped, "fuse_layer_norm_gamma_beta_swapped", "compiler-pass",
               S::CompilerPass, K::LayerNorm, "fuse gives the fused layer_norm its gamma and beta operands swapped"},
    MutantInfo{M::FuseSdpaDivisorAsScale, "fuse_sdpa_divisor_as_scale", "compiler-pass", S::CompilerPass, K::Sdpa,
               "fuse takes the divisor of scores / c as sdpa's scale (c instead of 1/c)"},
    MutantInfo{M::FuseGeluTanhMarkedExact, "fuse_gelu_tanh_marked_exact", "compiler-pass", S::CompilerPass, K::Gelu,
               "fuse marks a matched tanh-form gelu as exact (approximate none)"},
    MutantInfo{M::FuseRmsNormEpsDropped, "fuse_rms_norm_eps_dropped", "compiler-pass", S::CompilerPass, K::RmsNorm,
               "fuse records the fused rms_norm's eps as 0"},
    MutantInfo{M::ConstEvalTransposePermInverted, "const_eval_transpose_perm_inverted", "compiler-pass",
               S::CompilerPass, K::Transpose,
               "const-eval folds a transpose with the inverse permutation (same for swaps, wrong for 3-cycles)"},
    MutantInfo{M::AllGatherChunkOrderRotated, "all_gather_chunk_order_rotated", "collective", S::Collective,
               K::AllGather, "all_gather places member r+1's block at position r (ring order off by one)"},
    MutantInfo{M::ReduceScatterChunkMismatch, "reduce_scatter_chunk_mismatch", "collective", S::Collective,
               K::ReduceScatter, "reduce_scatter gives member r block r+1 of the sum"},
    MutantInfo{M::AllReduceMeanForSum, "all_reduce_mean_for_sum", "collective", S::Collective, K::AllReduce,
               "all_reduce averages instead of summing (wrong reduction op)"},
    MutantInfo{M::AllReduceOverWholeMesh, "all_reduce_over_whole_mesh", "collective", S::Collective, K::AllReduce,
               "all_reduce sums over every chip of the mesh, not only its axis group"},
    MutantInfo{M::VjpSiluSigmoidOnly, "vjp_silu_sigmoid_only", "vjp", S::VjpRule, K::Silu,
               "silu gradient sigmoid(x), without the x*s*(1-s) term"},
    MutantInfo{M::VjpDivDenominatorSign, "vjp_div_denominator_sign", "vjp", S::VjpRule, K::Div,
               "div gradient for the denominator without its minus sign"},
    MutantInfo{M::VjpReduceMeanUndivided, "vjp_reduce_mean_undivided", "vjp", S::VjpRule, K::ReduceMean,
               "reduce_mean gradient not divided by the count (reduce_sum's rule)"},
    MutantInfo{M::RsqrtFastApprox, "rsqrt_fast_approx", "approximation", S::DeviceKernel, K::Rsqrt,
               "rsqrt by the bit-trick estimate and one Newton step (up to 0.18% low)"},
    MutantInfo{M::LayerNormFastRsqrt, "layer_norm_fast_rsqrt", "approximation", S::DeviceKernel, K::LayerNorm,
               "layer_norm's 1/sqrt(var+eps) by the fast rsqrt estimate (up to 0.18% low)"},
    MutantInfo{M::RmsNormFastRsqrt, "rms_norm_fast_rsqrt", "approximation", S::DeviceKernel, K::RmsNorm,
               "rms_norm's 1/sqrt(ms+eps) by the fast rsqrt estimate (up to 0.18% low)"},
    MutantInfo{M::SoftmaxApproxExp, "softmax_approx_exp", "approximation", S::DeviceKernel, K::Softmax,
               "softmax's exp as 2^x with a quadratic for the fraction (about 0.3% error)"},
    MutantInfo{M::GeluSigmoidApprox, "gelu_sigmoid_approx", "approximation", S::DeviceKernel, K::Gelu,
               "gelu computed as x*sigmoid(1.702x) whatever its approximate attribute"},
    MutantInfo{M::SoftmaxNoMaxSubtraction, "softmax_no_max_subtraction", "stability", S::DeviceKernel, K::Softmax,
               "softmax exponentiates without subtracting the row max (exp saturates above ~88)"},
    MutantInfo{M::LayerNormEpsIgnored, "layer_norm_eps_ignored", "stability", S::DeviceKernel, K::LayerNorm,
               "layer_norm ignores eps (matters for rows of small variance)"},
    MutantInfo{M::LayerNormOnePassVariance, "layer_norm_one_pass_variance", "stability", S::DeviceKernel,
               K::LayerNorm, "layer_norm variance as E[x^2]-E[x]^2 in f32 (cancels for rows with a large mean)"},
    MutantInfo{M::EmbeddingGradOverwrite, "embedding_grad_overwrite", "stability", S::DeviceKernel,
               K::EmbeddingBackward, "embedding_backward overwrites a row for a repeated id instead of accumulating"},
    MutantInfo{M::KvCacheWriteOneEarly, "kv_cache_write_one_position_early", "decode", S::DeviceKernel, K::Concat,
               "the KV-cache append (rank-4 concat of one new position on axis 2) writes it one position early, "
               "leaving the last slot zero"},
    MutantInfo{M::KvCacheStaleRow, "kv_cache_stale_row", "decode", S::DeviceKernel, K::Concat,
               "the KV-cache append leaves the new slot holding the previous position's row (stale)"},
    MutantInfo{M::KvCacheWrongHead, "kv_cache_wrong_head", "decode", S::DeviceKernel, K::Concat,
               "the KV-cache append writes head h+1's new row into head h"},
    MutantInfo{M::BatchNormRunningStatsInTraining, "batch_norm_running_stats_in_training", "training-mode",
               S::CompilerPass, K::BatchNorm,
               "decompose normalises a training-mode batch_norm with the running statistics, not the batch's"},
    MutantInfo{M::MatmulBf16Accumulation, "matmul_bf16_accumulation", "accumulation", S::DeviceKernel, K::Matmul,
               "matmul adds the partial sums of its 32-wide K tiles in bf16"},
};

// Report order of the classes (mutant_classes()).
constexpr std::array<std::string_view, 15> kClasses{
    "scale",       "param-ignored", "formula",       "attention",     "indexing",
    "reduction",   "accumulation",  "numerics",      "compiler-pass", "collective",
    "vjp",         "approximation", "stability",     "decode",        "training-mode"};

constexpr bool every_class_known() {
  for (const MutantInfo& info : kCatalogue) {
    bool known = false;
    for (std::string_view c : kClasses) known = known || c == info.mutant_class;
    if (!known) return false;
  }
  return true;
}
static_assert(every_class_known(), "every mutant's class is in kClasses");

static_assert(kCatalogue.size() == static_cast<size_t>(MutantId::MatmulBf16Accumulation),
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

std::span<const std::string_view> mutant_classes() { return kClasses; }

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
