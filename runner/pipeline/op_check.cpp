// The per-op check of one device op: its reference (composites as the ops
// they fuse) on f32 forms of its operands from the conversion cache (large
// weights read as they are held), and the row of figures against the per-op
// thresholds.
#include "runner/pipeline/op_check.h"

#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>

#include "comparators/metrics.h"
#include "runner/pipeline/accumulation_bound.h"
#include "runner/pipeline/element_sample.h"
#include "runner/pipeline/row_sample.h"
#include "runner/pipeline/op_golden.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

namespace {

Tensor apply(OpKind kind, const std::vector<Tensor>& in, Attrs attrs = {}) {
  return runtime::run_reference_op(Op{kind, {}, kNoValue, std::move(attrs)}, in);
}

// The elementwise families, held to the per-element ulp bound.
bool is_elementwise(OpKind kind) { return is_unary_elementwise(kind) || is_binary_elementwise(kind); }

// The row-wise normalizations: every result element is computed in f32 from
// the operands and rounded to bf16 once, from a continuous value, so their
// rounding errors are unbiased and average a quarter ulp (ulp_spread_check).
bool is_normalization(OpKind kind) {
  return kind == OpKind::Softmax || kind == OpKind::LayerNorm || kind == OpKind::RmsNorm || kind == OpKind::BatchNorm;
}

// Elementwise ops whose exact result is continuous (transcendental
// functions and division: almost never a bf16 value), so rounding it once
// errs by a quarter ulp on average. Sums and products of bf16 values are
// not (their exact results need a few bits more than bf16 holds, so errors
// of 0 and of a half-ulp tie dominate), nor are ops whose results are exact.
bool continuous_elementwise(OpKind kind) {
  switch (kind) {
    case OpKind::Gelu:
    case OpKind::Tanh:
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Rsqrt:
    case OpKind::Sigmoid:
    case OpKind::Silu:
    case OpKind::Erf:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Div:
      return true;
    default:
      return false;
  }
}

// The ulp figures are measured for both families and judged by max_ulp. The
// spread of the errors (ulp_spread_failure): the normalizations' bias and
// mean |error|; the continuous elementwise ops' mean |error| alone (their
// saturating ends round toward the limit from one side: a tanh near 1, a
// sigmoid near 0, so their bias is not rounding's).
bool rounds_once(OpKind kind) { return is_elementwise(kind) || is_normalization(kind); }

Tensor scalar(double value) {
  Tensor t(DType::F32, {});
  *t.data<float>() = static_cast<float>(value);
  return t;
}

// The composites the compiler's fuse pass makes have no reference kernel (the
// reference runs the unfused graph); here they are the reference ops they
// fuse, applied to the fused op's own operands:
//   sdpa(q, kᵀ, v[, mask]){scale} = softmax(q·kᵀ·scale [+ mask]) · v
//   rms_norm(x, w){eps}          = x · rsqrt(mean(x², last axis) + eps) · w
std::optional<Tensor> composite_reference(const DeviceInstr& instr, const std::vector<Tensor>& in) {
  if (instr.kind == OpKind::Sdpa) {
    Tensor scores = apply(OpKind::Mul, {apply(OpKind::Matmul, {in[0], in[1]}), scalar(instr.attrs.get_float("scale"))});
    if (in.size() > 3) scores = apply(OpKind::Add, {scores, in[3]});
    Attrs last;
    last.set("axis", int64_t{-1});
    return apply(OpKind::Matmul, {apply(OpKind::Softmax, {scores}, last), in[2]});
  }
  if (instr.kind == OpKind::RmsNorm) {
    Attrs mean;
    mean.set("axes", std::vector<int64_t>{-1});
    mean.set("keepdim", int64_t{1});
    const Tensor ms = apply(OpKind::ReduceMean, {apply(OpKind::Mul, {in[0], in[0]})}, mean);
    const Tensor inv = apply(OpKind::Rsqrt, {apply(OpKind::Add, {ms, scalar(instr.attrs.get_float("eps"))})});
    return apply(OpKind::Mul, {apply(OpKind::Mul, {in[0], inv}), in[1]});
  }
  return std::nullopt;
}

// The figures of a checked op (status "checked").
void compare(const OpToCheck& op, const std::vector<Tensor>& operands, const Tensor& result, const Tensor& reference,
             const OpThresholds& thresholds, OpGoldenRow& row) {
  const comparators::OutputMetrics compared = record_comparison(result, reference, thresholds, row);
  const DeviceInstr& instr = *op.instr;
  const bool same_shape = result.shape() == reference.shape();
  if (rounds_once(instr.kind) && op.result.dtype() == DType::BF16 && same_shape) {
    const bool judge_bias = is_normalization(instr.kind);
    judge_rounding(result, reference, compared, thresholds, judge_bias || continuous_elementwise(instr.kind), judge_bias, row);
  }
  if (!thresholds.accumulation_bound || !same_shape) return;
  const std::optional<AccumulationCheck> acc =
      check_accumulation(instr, operands, result, reference, op.result.dtype());
  if (!acc) return;
  row.k = acc->k;
  row.accumulation_ratio = acc->worst_ratio;
  if (!(acc->worst_ratio <= 1.0)) {
    char note[200];
    std::snprintf(note, sizeof note,
                  "element %lld is %.3g times the f32 accumulation bound of a K=%lld contraction (an accumulator "
                  "narrower than f32?)",
                  static_cast<long long>(acc->worst_element), acc->worst_ratio, static_cast<long long>(acc->k));
    flag_row(row, note);
  }
}

// `t` as the reference reads it: floats as f32, other dtypes as they are.
Tensor as_f32(const Tensor& t) { return is_floating(t.dtype()) && t.dtype() != DType::F32 ? t.to(DType::F32) : t; }

// Operand `slot` as the reference reads it: a weight it reads as held, else
// f32, shared through `cache` (none for a sample's own copies).
Tensor reference_operand(OpKind kind, size_t slot, const Tensor& t, ConversionCache* cache) {
  if (runtime::reads_operand_as_held(kind, slot, t.dtype())) return t;
  return cache != nullptr ? cache->f32(t) : as_f32(t);
}

// A large elementwise op on its sample (element_sample.h): each sampled
// result element against the reference of the operand elements it read.
void check_elementwise_sample(const OpToCheck& op, const OpThresholds& thresholds, OpGoldenRow& row) {
  const std::vector<SampleRun> runs = sample_runs(op.result.numel());
  std::vector<Tensor> operands;
  for (const Tensor& t : op.operands) operands.push_back(as_f32(gather_broadcast_sample(t, op.result.shape(), runs)));
  const Tensor reference = runtime::run_reference_op(Op{op.instr->kind, {}, kNoValue, op.instr->attrs}, operands);
  const Tensor result = as_f32(gather_sample(op.result, runs));
  row.sampled = result.numel();
  compare(op, operands, result, reference, thresholds, row);
}

// An op with independent rows on its sample (row_sample.h): the reference of
// the narrowed op, under the attributes the sample runs with.
void check_row_sample(const OpToCheck& op, RowSample& sample, const OpThresholds& thresholds, ConversionCache& cache,
                      OpGoldenRow& row) {
  DeviceInstr narrowed = *op.instr;
  if (sample.attrs) narrowed.attrs = *sample.attrs;
  OpToCheck narrowed_op = op;
  narrowed_op.instr = &narrowed;
  for (size_t i = 0; i < sample.operands.size(); ++i) {
    sample.operands[i] = reference_operand(narrowed.kind, i, sample.operands[i], sample.narrowed[i] ? nullptr : &cache);
  }
  const Tensor result = as_f32(sample.result);
  row.sampled = result.numel();
  const Tensor reference = runtime::run_reference_op(Op{narrowed.kind, {}, kNoValue, narrowed.attrs}, sample.operands);
  compare(narrowed_op, sample.operands, result, reference, thresholds, row);
}

}  // namespace

void flag_row(OpGoldenRow& row, const std::string& note) {
  row.note += (row.note.empty() ? "" : "; ") + note;
  row.past = true;
}

comparators::OutputMetrics record_comparison(const Tensor& device, const Tensor& reference,
                                             const OpThresholds& thresholds, OpGoldenRow& row) {
  comparators::ComparisonConfig config;
  config.required_pcc = thresholds.required_pcc;
  config.scale_tolerance = thresholds.scale_tolerance;
  const comparators::OutputMetrics m = comparators::compare_tensors(row.origin, device, reference, config);
  row.status = "checked";
  row.pcc = m.pcc;
  row.atol = m.atol;
  row.norm_ratio = m.norm_ratio;
  row.equal = m.finite && m.equal;
  row.past = !m.passed;
  row.note = m.failure;
  return m;
}

void judge_rounding(const Tensor& device, const Tensor& reference, const comparators::OutputMetrics& compared,
                    const OpThresholds& thresholds, bool judge_spread, bool judge_bias, OpGoldenRow& row) {
  const comparators::Bf16UlpStats ulp = comparators::bf16_ulp_stats(device, reference, compared);
  row.max_ulp = ulp.max;
  row.ulp_mean_abs = ulp.mean_abs;
  row.ulp_bias = ulp.bias;
  row.ulp_counted = ulp.counted;
  if (!(ulp.max <= thresholds.max_ulp)) {
    char note[160];
    std::snprintf(note, sizeof note, "an element is %.4g bf16 ulp from the reference (allowed %.4g)", ulp.max,
                  thresholds.max_ulp);
    flag_row(row, note);
  }
  if (!judge_spread || !std::isfinite(thresholds.max_ulp)) return;
  const std::string failure = ulp_spread_failure(ulp.mean_abs, judge_bias ? ulp.bias : 0.0, ulp.counted);
  if (!failure.empty()) flag_row(row, failure);
}

Tensor ConversionCache::f32(const Tensor& t) {
  if (!is_floating(t.dtype()) || t.dtype() == DType::F32) return t;
  const void* key = t.raw_data();
  if (key == nullptr) return t.to(DType::F32);
  if (const auto it = entries_.find(key);
      it != entries_.end() && it->second.source.dtype() == t.dtype() && it->second.source.shape() == t.shape()) {
    return it->second.converted;
  }
  Tensor converted = t.to(DType::F32);
  const size_t bytes = converted.nbytes();
  if (bytes > limit_bytes_ / 4) return converted;  // a large weight, read once: kept out so activations stay
  if (const auto it = entries_.find(key); it != entries_.end()) {  // same storage, other view: replaced
    held_bytes_ -= it->second.converted.nbytes();
    entries_.erase(it);
    std::erase(order_, key);
  }
  while (held_bytes_ + bytes > limit_bytes_ && !order_.empty()) {
    const auto it = entries_.find(order_.front());
    held_bytes_ -= it->second.converted.nbytes();
    entries_.erase(it);
    order_.pop_front();
  }
  entries_.emplace(key, Entry{t, converted});
  order_.push_back(key);
  held_bytes_ += bytes;
  return converted;
}

OpGoldenRow check_op(const OpToCheck& op, const OpThresholds& thresholds, ConversionCache& cache) {
  const DeviceInstr& instr = *op.instr;
  OpGoldenRow row;
  row.chip = op.chip;
  row.index = op.index;
  row.op = std::string(op_name(instr.kind));
  row.origin = instr.origin;
  row.layer = op.layer;
  for (const Tensor& t : op.operands) row.operand_shapes.push_back(t.shape());
  row.shape = op.result.shape();
  row.dtype = std::string(dtype_name(op.result.dtype()));
  const bool composite = instr.kind == OpKind::Sdpa || instr.kind == OpKind::RmsNorm;
  if (!composite && runtime::reference_kernels().find(instr.kind) == nullptr) {
    row.status = "no_reference";
    row.note = std::string(runtime::reference_kernels().reason(instr.kind));
    return row;
  }
  try {
    if (!thresholds.every_element) {
      if (is_elementwise(instr.kind) && op.result.numel() > kSampleAbove) {
        check_elementwise_sample(op, thresholds, row);
        return row;
      }
      if (std::optional<RowSample> sample = sample_rows(instr, op.index, op.chip, op.operands, op.result)) {
        check_row_sample(op, *sample, thresholds, cache, row);
        return row;
      }
    }
    std::vector<Tensor> operands;
    operands.reserve(op.operands.size());
    for (size_t i = 0; i < op.operands.size(); ++i) {
      operands.push_back(reference_operand(instr.kind, i, op.operands[i], &cache));
    }
    const Tensor result = cache.f32(op.result);
    const std::optional<Tensor> fused = composite_reference(instr, operands);
    const Tensor reference =
        fused ? *fused : runtime::run_reference_op(Op{instr.kind, {}, kNoValue, instr.attrs}, operands);
    compare(op, operands, result, reference, thresholds, row);
  } catch (const std::exception& ex) {
    row.status = "error";
    row.note = ex.what();
  }
  return row;
}

}  // namespace meshtest::runner
