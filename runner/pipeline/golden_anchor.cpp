// Golden-anchored intermediate checks: device results matched to the
// un-compiled graph's values by DeviceBuffer::value and compared with a CPU
// reference run of that graph; device weights compared with the graph's f32
// weights within their dtype's conversion bound (see golden_anchor.h).
#include "runner/pipeline/golden_anchor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "comparators/metrics.h"
#include "core/bfp8_layout.h"
#include "core/parallel.h"
#include "core/vector_lanes.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/element_sample.h"
#include "runner/pipeline/op_golden.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

namespace {

// Ops whose operands are in their result's units: a relu or a residual sub
// that cancels most of its input leaves a small result whose bf16 error is
// its input's, so the error is measured against the largest of their norms.
bool keeps_units(OpKind kind) {
  return kind == OpKind::Relu || kind == OpKind::Add || kind == OpKind::Sub || kind == OpKind::Maximum ||
         kind == OpKind::Neg || kind == OpKind::Abs;
}

// The conversions round to nearest, so each element's error is at most half
// a step of its format: bf16 half an ulp of the element (8 significant bits);
// bfp8_b half a step of its block (7 bits below the block's largest
// exponent; step = 2^(floor(log2 max|block|) - 6)), or up to a whole step for
// the largest element where the mantissa saturates at 127. Honest
// conversions are within these by construction; a truncating or shrinking
// encoder is not (up to 2x for truncation).
constexpr double kConversionSlack = 1.0 + 1e-6;
// ||device|| / ||golden|| of a weight: the PR selection's worst honest figure
// is 1.0024 (a per-channel vector of mobilenet_v2_tiny: few elements), so 1%
// keeps a 4x margin and still fails an encoder that shrinks weights by 2%.
constexpr double kWeightNormBound = 0.01;

// Half a step of a format keeping `mantissa_bits` bits below the leading one
// at `magnitude`'s exponent.
double half_step(double magnitude, int mantissa_bits) {
  return magnitude > 0.0 ? std::ldexp(1.0, std::ilogb(magnitude) - mantissa_bits - 1) : 0.0;
}

// A device element as f64: an f32 value, or bf16 bits.
inline double element(const float* p, int64_t i) { return static_cast<double>(p[i]); }
inline double element(const uint16_t* p, int64_t i) {
  const uint32_t bits = static_cast<uint32_t>(p[i]) << 16;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return static_cast<double>(v);
}

// What a bf16 weight's check needs, in one read of both sides.
struct Bf16WeightScan {
  double worst = 0.0;  // worst |d - g| / allowed
  double sq_d = 0.0, sq_g = 0.0;
};

// The scan over [0, n): allowed is half a bf16 step at g, 2^(exponent(g) -
// 8), its inverse read from the f64 bits of |g| (exact for f32 subnormals
// too), so the loop is branch-free and runs in lanes; g = 0 allows nothing
// (inf when d differs). A NaN on either side makes the sums of squares NaN,
// which fails the norm ratio.
template <typename D>
Bf16WeightScan scan_bf16_weight(const D* d, const float* g, int64_t n) {
  constexpr int kLanes = 8;
  double worst[kLanes] = {}, sq_d[kLanes] = {}, sq_g[kLanes] = {};
  auto visit = [&](int64_t i, int l) {
    const double gi = static_cast<double>(g[i]), di = element(d, i);
    const double err = std::abs(di - gi);
    const double magnitude = std::abs(gi);
    uint64_t bits;
    std::memcpy(&bits, &magnitude, sizeof bits);
    const uint64_t inverse_bits = (2 * 1023 + 8 - std::min<uint64_t>(bits >> 52, 2 * 1023 + 7)) << 52;
    double inverse;
    std::memcpy(&inverse, &inverse_bits, sizeof inverse);
    const double r = magnitude == 0.0 ? (err == 0.0 ? 0.0 : INFINITY) : err * inverse;
    worst[l] = std::max(worst[l], r);
    sq_d[l] += di * di;
    sq_g[l] += gi * gi;
  };
  const int64_t whole = n / kLanes * kLanes;
  for (int64_t i = 0; i < whole; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) visit(i + l, l);
  }
  for (int64_t i = whole; i < n; ++i) visit(i, 0);
  Bf16WeightScan out;
  for (int l = 0; l < kLanes; ++l) {
    out.worst = std::max(out.worst, worst[l]);
    out.sq_d += sq_d[l];
    out.sq_g += sq_g[l];
  }
  return out;
}

// scan_bf16_weight's figures in f32 lanes (core/vector_lanes.h): exact too
// where every nonzero |g| is at least 2^-119 (the inverse 2^(8 - exponent(g))
// is then an f32 normal, and |d - g| is exact in f32 for an honest
// conversion: d within a factor 2 of g); nullopt where one is not. The
// squares are summed in f32 over blocks of kSteps lanes-wide steps (within
// 2^-19 of their sum: a norm ratio within 1e-6) and the blocks in f64; a
// block whose f32 sums overflow is summed again in f64.
template <typename D>
std::optional<Bf16WeightScan> scan_bf16_weight_lanes(const D* d, const float* g, int64_t n) {
  using namespace lanes;
  constexpr int64_t kSteps = 32, kBlock = kSteps * kLanes;
  Vf worst{};
  Vi tiny{};
  Bf16WeightScan out;
  const int64_t whole = n / kBlock * kBlock;
  for (int64_t at = 0; at < whole; at += kBlock) {
    Vf sq_d{}, sq_g{};
    for (int64_t s = 0; s < kSteps; ++s) {
      __builtin_prefetch(d + at + kBlock + s * kLanes);
      __builtin_prefetch(g + at + kBlock + s * kLanes);
      const Vf di = load(d + at + s * kLanes), gi = load(g + at + s * kLanes);
      const Vu bits = as<Vu>(gi) & 0x7fffffffu;
      const Vu exponent = bits >> 23;  // 255 (inf, NaN): the squares carry it
      tiny |= (exponent < 8u) & (bits != 0u);
      const Vu clamped = exponent < 8u ? Vu{} + 8u : (exponent > 254u ? Vu{} + 254u : exponent);
      const Vf inverse = as<Vf>((262u - clamped) << 23);
      const Vf err = magnitude(di - gi);
      const Vf zero{};
      const Vf r = bits == 0u ? (err == zero ? zero : zero + INFINITY) : err * inverse;
      worst = larger(worst, r);
      sq_d += di * di;
      sq_g += gi * gi;
    }
    const double block_d = lane_sum(sq_d), block_g = lane_sum(sq_g);
    if (std::isfinite(block_d + block_g)) {
      out.sq_d += block_d;
      out.sq_g += block_g;
    } else {  // past f32's range (or a NaN / inf, which f64 keeps)
      const Bf16WeightScan exact = scan_bf16_weight(d + at, g + at, kBlock);
      out.sq_d += exact.sq_d;
      out.sq_g += exact.sq_g;
    }
  }
  if (any_lane(tiny)) return std::nullopt;
  const Bf16WeightScan rest = scan_bf16_weight(d + whole, g + whole, n - whole);
  out.worst = std::max(static_cast<double>(lane_max(worst)), rest.worst);
  out.sq_d += rest.sq_d;
  out.sq_g += rest.sq_g;
  return out;
}

// scan_bf16_weight in parallel chunks; the device side f32 or bf16.
Bf16WeightScan scan_bf16_weight(const Tensor& device, const Tensor& golden) {
  constexpr int64_t kChunk = 1 << 16;
  const int64_t n = golden.numel(), chunks = (n + kChunk - 1) / kChunk;
  std::vector<Bf16WeightScan> parts(static_cast<size_t>(chunks));
  const float* g = golden.data<float>();
  parallel_ranges(chunks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int64_t first = c * kChunk, count = std::min(kChunk, n - first);
      auto scan = [&](const auto* d) {
        const std::optional<Bf16WeightScan> fast = scan_bf16_weight_lanes(d + first, g + first, count);
        return fast ? *fast : scan_bf16_weight(d + first, g + first, count);
      };
      parts[static_cast<size_t>(c)] = device.dtype() == DType::BF16
                                          ? scan(static_cast<const uint16_t*>(device.raw_data()))
                                          : scan(device.data<float>());
    }
  });
  Bf16WeightScan total;
  for (const Bf16WeightScan& p : parts) {
    total.worst = std::max(total.worst, p.worst);
    total.sq_d += p.sq_d;
    total.sq_g += p.sq_g;
  }
  return total;
}

// Worst |d - g| / allowed over a bfp8_b weight's elements (both f32).
double worst_bfp8_b_ratio(const Tensor& device, const Tensor& golden) {
  const float* d = device.data<float>();
  const float* g = golden.data<float>();
  double worst = 0.0;
  auto account = [&](int64_t i, double allowed) {
    const double err = std::abs(static_cast<double>(d[i]) - static_cast<double>(g[i]));
    if (err == 0.0) return;
    worst = std::max(worst, allowed > 0.0 ? err / allowed : INFINITY);
  };
  const int64_t blocks = bfp8_b_block_count(golden.shape());
  for (int64_t b = 0; b < blocks; ++b) {
    const Bfp8BlockSpan span = bfp8_b_block_span(golden.shape(), b);
    double top = 0.0;
    for (int64_t i = span.first; i < span.first + span.count; ++i) top = std::max(top, std::abs(double{g[i]}));
    const double half = half_step(top, 6);
    for (int64_t i = span.first; i < span.first + span.count; ++i) {
      account(i, std::max(half, std::abs(double{g[i]}) - 127.0 * 2.0 * half));
    }
  }
  return worst;
}

double norm(const Tensor& t) { return comparators::l2_norm(t); }

// The scale a value's error is measured against: its own norm, or the
// scale it has from its operands where it cancels them. Elementwise ops in
// their operands' units (keeps_units) and movement ops take the largest
// operand scale of their size (a relu or a residual sub that cancels most of
// its input leaves a small result whose bf16 error is its input's); a sum
// (mean) of n values takes sqrt(n) (1/sqrt(n)) times its operand's, the norm
// it would have if nothing cancelled (a backward's sums of centred values
// are near 0 by construction).
using Magnitude = AnchorMagnitude;

double value_scale(OpKind kind, const std::vector<Magnitude>& operands, const Magnitude& golden) {
  double scale = golden.norm;
  const bool movement = kind == OpKind::Reshape || kind == OpKind::Transpose || kind == OpKind::Cast;
  if (keeps_units(kind) || movement) {
    for (const Magnitude& in : operands) {
      if (in.numel == golden.numel) scale = std::max(scale, in.scale);
    }
  }
  // A product or quotient keeps its operands' relative errors: it keeps the
  // largest of their cancellation factors (scale / norm).
  if (kind == OpKind::Mul || kind == OpKind::Div) {
    double factor = 1.0;
    for (const Magnitude& in : operands) {
      if (in.norm > 0.0) factor = std::max(factor, in.scale / in.norm);
    }
    scale *= factor;
  }
  if ((kind == OpKind::ReduceSum || kind == OpKind::ReduceMean) && !operands.empty() && golden.numel > 0) {
    const double n = static_cast<double>(operands[0].numel) / static_cast<double>(golden.numel);
    scale = std::max(scale,
                     kind == OpKind::ReduceSum ? operands[0].scale * std::sqrt(n) : operands[0].scale / std::sqrt(n));
  }
  return scale;
}

std::string figure(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

GoldenAnchor::GoldenAnchor(const Graph& graph, bool every_element, double rel_l2_bound)
    : graph_(graph), every_element_(every_element), bound_(rel_l2_bound) {}

std::vector<SampleRun> GoldenAnchor::runs(int64_t numel) const {
  return every_element_ ? std::vector<SampleRun>{SampleRun{0, numel}} : sample_runs(numel);
}

ConvertedWeightFigures converted_weight_figures(const Tensor& device, DType dtype, const Tensor& golden) {
  ConvertedWeightFigures figures;
  double golden_norm = 0.0, device_norm = 0.0;
  if (dtype == DType::BF16) {  // read as the device holds it: no f32 copy of the weight
    const Tensor values = device.dtype() == DType::BF16 ? device : device.to(DType::F32);
    const Bf16WeightScan scan = scan_bf16_weight(values, golden);
    figures.worst_ratio = scan.worst;
    golden_norm = std::sqrt(scan.sq_g);
    device_norm = std::sqrt(scan.sq_d);
  } else {
    const Tensor values = device.to(DType::F32);
    figures.worst_ratio = worst_bfp8_b_ratio(values, golden);
    golden_norm = norm(golden);
    device_norm = norm(values);
  }
  figures.norm_ratio = golden_norm > 0.0 ? device_norm / golden_norm : 1.0;
  figures.golden_norm = golden_norm;
  return figures;
}

ConvertedWeightFigures checked_weight_figures(const Tensor& device, DType dtype, const Tensor& golden,
                                              bool every_element) {
  // A bf16 weight's conversion is elementwise, so a sample shows it; a
  // bfp8_b weight's blocks are kept whole.
  const int64_t n = golden.numel();
  if (every_element || dtype != DType::BF16 || sample_size(n) == n) return converted_weight_figures(device, dtype, golden);
  const std::vector<SampleRun> sample = sample_runs(n);
  ConvertedWeightFigures figures =
      converted_weight_figures(gather_sample(device, sample), dtype, gather_sample(golden, sample));
  figures.sampled = sample_size(n);
  figures.golden_norm *= std::sqrt(static_cast<double>(n) / static_cast<double>(figures.sampled));
  return figures;
}

void GoldenAnchor::check_weight(const std::string& name, DType dtype, const Tensor& device) {
  const Param* p = graph_.find_param(name);
  if (p == nullptr || p->kind != ParamKind::Weight) return;  // a weight the compiler made (const-eval)
  if (dtype != DType::BF16 && dtype != DType::BFP8_B) return;
  const Tensor golden = materialize(*p, graph_.type(p->value)).to(DType::F32);
  if (golden.shape() != device.shape()) return;
  WeightRow row;
  row.name = name;
  row.dtype = std::string(dtype_name(dtype));
  const ConvertedWeightFigures figures = checked_weight_figures(device, dtype, golden, every_element_);
  row.sampled = figures.sampled;
  weight_norms_[p->value] = figures.golden_norm;
  row.worst_ratio = figures.worst_ratio;
  row.norm_ratio = figures.norm_ratio;
  row.past = !(row.worst_ratio <= kConversionSlack) || !(std::abs(row.norm_ratio - 1.0) <= kWeightNormBound);
  weights_.push_back(std::move(row));
}

void GoldenAnchor::observe(const backend::OpExecution& e) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (finished_) return;
  if (e.chip != 0) {
    mesh_ = true;
    return;
  }
  if (layers_.empty()) layers_ = layer_paths(e.program);
  if (e.instr.attrs.get_string("math_fidelity", "HiFi4") == "LoFi") reduced_fidelity_ = true;
  for (size_t slot = 0; slot < e.instr.inputs.size() && slot < e.operands.size(); ++slot) {
    const DeviceBuffer& b = e.program.buffers[static_cast<size_t>(e.instr.inputs[slot])];
    if (b.kind == BufferKind::Weight && weights_seen_.insert(b.name).second)
      check_weight(b.name, b.type.dtype, *e.operands[slot]);
  }
  if (e.instr.output < 0) return;
  const DeviceBuffer& out = e.program.buffers[static_cast<size_t>(e.instr.output)];
  if (out.value < 0 || static_cast<size_t>(out.value) >= graph_.values.size() || !is_floating(e.result.dtype())) {
    return;
  }
  const std::string layer = e.index < layers_.size() ? layers_[e.index] : "";
  // A routing mask is kept whole: the golden takes it (compare_value).
  Tensor kept = e.instr.kind == OpKind::TopkMask ? e.result.clone() : gather_sample(e.result, runs(e.result.numel()));
  kept_.insert_or_assign(out.value, Kept{e.index, std::string(op_name(e.instr.kind)), e.instr.origin, layer,
                                         e.result.shape(), std::move(kept)});
}

runtime::ReferenceOpHook GoldenAnchor::watch() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finished_ = true;
  }
  return [this](size_t, const Op& op, const std::vector<Tensor>& operands, Tensor& result) {
    compare_value(op, operands, result);
  };
}

void GoldenAnchor::compare_value(const Op& op, const std::vector<Tensor>& operands, Tensor& result) {
  if (mesh_ || !is_floating(result.dtype())) return;
  std::vector<Magnitude> in;
  for (size_t i = 0; i < op.inputs.size() && i < operands.size(); ++i) {
    auto m = magnitudes_.find(op.inputs[i]);
    if (m == magnitudes_.end()) {  // a parameter (or an integer value: no error of its own)
      const auto checked = weight_norms_.find(op.inputs[i]);  // its norm found when its conversion was checked
      const double n = checked != weight_norms_.end()         ? checked->second
                       : is_floating(operands[i].dtype()) ? norm(operands[i])
                                                          : 0.0;
      m = magnitudes_.emplace(op.inputs[i], Magnitude{n, n, operands[i].numel()}).first;
    }
    in.push_back(m->second);
  }
  const auto it = kept_.find(op.output);
  const bool comparable = it != kept_.end() && it->second.shape == result.shape();
  if (comparable && op.kind == OpKind::TopkMask) {  // follow the device's routing
    result = it->second.kept.to(result.dtype());
  }
  if (!comparable || op.kind == OpKind::TopkMask) {
    Magnitude out{norm(result), 0.0, result.numel()};
    out.scale = value_scale(op.kind, in, out);
    magnitudes_[op.output] = out;
    if (it != kept_.end()) kept_.erase(it);
    return;
  }
  const Kept& k = it->second;
  const int64_t n = result.numel();
  const std::vector<SampleRun> sample = runs(n);
  const Tensor golden = (sample.size() > 1 ? gather_sample(result, sample) : result.reshaped({n})).to(DType::F32);
  const comparators::OutputMetrics m =
      comparators::compare_tensors(k.origin, k.kept.dtype() == DType::BF16 ? k.kept : k.kept.to(DType::F32), golden,
                                   {});  // a bf16 value is read as it is kept
  // A sample's sums of squares, scaled to the value's element count.
  const int64_t sampled = golden.numel() < n ? golden.numel() : 0;
  const double extent = sampled > 0 ? std::sqrt(static_cast<double>(n) / static_cast<double>(sampled)) : 1.0;
  Magnitude out{m.golden_l2 * extent, 0.0, n};
  out.scale = value_scale(op.kind, in, out);
  magnitudes_[op.output] = out;
  double inherited = 0.0;  // the worst error among its operands compared so far
  for (ValueId v : op.inputs) {
    if (const auto e = errors_.find(v); e != errors_.end()) inherited = std::max(inherited, e->second);
  }
  AnchorRow row;
  row.index = k.index;
  row.op = k.op;
  row.origin = k.origin;
  row.layer = k.layer;
  row.shape = result.shape();
  row.pcc = m.pcc;
  row.sampled = sampled;
  row.rel_l2 = !m.finite            ? INFINITY
               : m.error_l2 == 0.0  ? 0.0
               : out.scale > 0.0    ? m.error_l2 * extent / out.scale
                                    : INFINITY;
  row.inherited = inherited;
  errors_[op.output] = row.rel_l2;
  row.norm_ratio = m.norm_ratio;
  row.bound = bound_;
  // A comparison's 0/1 result flips where its operands tie within bf16:
  // recorded, not judged (its operands are).
  row.judged = result.numel() >= kAnchorMinElements && !reduced_fidelity_ && op.kind != OpKind::Greater;
  // softmax (and the sdpa around one) amplifies its logits' error by their
  // magnitude: held to the absolute bound only.
  const bool amplifies = op.kind == OpKind::Softmax || op.kind == OpKind::Sdpa;
  const bool jumped = !amplifies && row.rel_l2 > kAnchorJumpFloor &&
                      row.rel_l2 > kAnchorJumpFactor * std::max(inherited, kAnchorJumpFloor);
  row.past = row.judged && (!m.finite || !(row.rel_l2 <= bound_) || jumped);
  rows_.push_back(std::move(row));
  kept_.erase(it);
}

AnchorReport GoldenAnchor::finish(const std::map<std::string, Tensor>& inputs) {
  const runtime::ReferenceOpHook hook = watch();
  if (!mesh_) runtime::run_reference(graph_, inputs, hook);
  return report();
}

AnchorReport GoldenAnchor::report() {
  std::lock_guard<std::mutex> lock(mutex_);
  finished_ = true;
  AnchorReport report;
  report.weights = std::move(weights_);
  report.rows = std::move(rows_);
  kept_.clear();
  magnitudes_.clear();
  weight_norms_.clear();
  errors_.clear();
  if (mesh_) {
    report.note = "a mesh: the per-chip graphs have no golden values (one-chip cases only)";
    return report;
  }
  if (reduced_fidelity_) report.note = "GEMMs below HiFi4: intermediates recorded, not judged";
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [](const AnchorRow& a, const AnchorRow& b) { return a.index < b.index; });
  for (const WeightRow& w : report.weights) {
    if (!w.past) continue;
    report.failure = "weight '" + w.name + "' as the device holds it (" + w.dtype + ") is off the golden's: worst " +
                     figure("%.3g", w.worst_ratio) + "x the conversion bound, norm ratio " +
                     figure("%.5f", w.norm_ratio);
    break;
  }
  for (const AnchorRow& r : report.rows) {
    if (!r.past) continue;
    report.failure +=
        std::string(report.failure.empty() ? "" : "; ") + "first diverging intermediate: " + describe_anchor_row(r);
    break;
  }
  return report;
}

std::string describe_anchor_row(const AnchorRow& row) {
  char figures[128];
  std::snprintf(figures, sizeof figures, "rel_l2 %.4g (allowed %.3g), pcc %.6f, scale %.4f", row.rel_l2, row.bound,
                row.pcc, row.norm_ratio);
  const std::string sample = row.sampled > 0 ? " on a sample of " + std::to_string(row.sampled) + " elements" : "";
  return row.origin + (row.layer.empty() ? "" : " in " + row.layer) + " (device op " + std::to_string(row.index) +
         ", " + shape_to_string(row.shape) + "): " + figures + sample;
}

std::string golden_anchor_jsonl(const AnchorReport& report) {
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
  std::string out;
  for (const AnchorRow& r : report.rows) {
    nlohmann::json j;
    j["kind"] = "intermediate";
    j["index"] = r.index;
    j["op"] = r.op;
    j["origin"] = r.origin;
    j["layer"] = r.layer;
    j["shape"] = r.shape;
    j["pcc"] = num(r.pcc);
    j["rel_l2"] = num(r.rel_l2);
    j["inherited"] = num(r.inherited);
    j["sampled"] = r.sampled;
    j["norm_ratio"] = num(r.norm_ratio);
    j["judged"] = r.judged;
    j["past_threshold"] = r.past;
    out += j.dump() + "\n";
  }
  for (const WeightRow& w : report.weights) {
    nlohmann::json j;
    j["kind"] = "weight";
    j["name"] = w.name;
    j["dtype"] = w.dtype;
    j["worst_ratio"] = num(w.worst_ratio);
    j["sampled"] = w.sampled;
    j["norm_ratio"] = num(w.norm_ratio);
    j["past_threshold"] = w.past;
    out += j.dump() + "\n";
  }
  return out;
}

std::string record_golden_anchor(const std::function<AnchorReport()>& make_report, const OpGoldenPlan& plan,
                                 const std::string& dir, reports::CaseResult& r) {
  AnchorReport report;
  try {
    report = make_report();
  } catch (const std::exception& e) {  // the reference failed on its own: the golden phase reports that
    report.note = std::string("not compared: ") + e.what();
  }
  if (plan.report) {
    const std::filesystem::path folder = std::filesystem::path(dir) / sanitize_test_id(r.test_id);
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "golden_anchor.jsonl") << golden_anchor_jsonl(report);
  }
  return plan.check && !report.failure.empty() ? "golden anchor: " + report.failure : "";
}

void add_anchor_failure(const std::string& failure, bool& passed, std::string& message) {
  if (failure.empty()) return;
  message = passed || message.empty() ? failure : message + "; " + failure;
  passed = false;
}

}  // namespace meshtest::runner
