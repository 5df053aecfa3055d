// Op-level golden: each observed device op re-run alone on the CPU reference
// and compared (comparators' metrics); rows, the first past, JSON lines.
#include "runner/pipeline/op_golden.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <nlohmann/json.hpp>

#include "comparators/metrics.h"
#include "core/error.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

namespace {

// Device tensor -> how the reference holds it (floats as f32, ints as they are).
Tensor host_view(const Tensor& t) { return is_floating(t.dtype()) ? t.to(DType::F32) : t; }

Tensor apply(OpKind kind, const std::vector<Tensor>& in, Attrs attrs = {}) {
  return runtime::run_reference_op(Op{kind, {}, kNoValue, std::move(attrs)}, in);
}

// The elementwise families, held to the per-element ulp bound.
bool is_elementwise(OpKind kind) { return is_unary_elementwise(kind) || is_binary_elementwise(kind); }

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

}  // namespace

std::vector<std::string> layer_paths(const DeviceProgram& program) {
  std::vector<std::string> of_buffer(program.buffers.size());
  std::vector<std::string> layers;
  layers.reserve(program.instrs.size());
  for (const DeviceInstr& instr : program.instrs) {
    std::string layer;
    for (int32_t b : instr.inputs) {
      const DeviceBuffer& buffer = program.buffers[static_cast<size_t>(b)];
      if (buffer.kind == BufferKind::Weight && !buffer.name.empty()) {
        const size_t dot = buffer.name.rfind('.');
        layer = dot == std::string::npos ? buffer.name : buffer.name.substr(0, dot);
        break;
      }
    }
    if (layer.empty() && !instr.inputs.empty()) layer = of_buffer[static_cast<size_t>(instr.inputs[0])];
    if (instr.output >= 0) of_buffer[static_cast<size_t>(instr.output)] = layer;
    layers.push_back(std::move(layer));
  }
  return layers;
}

void OpGolden::observe(const backend::OpExecution& e) {
  std::call_once(layers_once_, [&] { layers_ = layer_paths(e.program); });
  OpGoldenRow row;
  row.chip = e.chip;
  row.index = e.index;
  row.op = std::string(op_name(e.instr.kind));
  row.origin = e.instr.origin;
  if (e.index < layers_.size()) row.layer = layers_[e.index];
  for (const Tensor* t : e.operands) row.operand_shapes.push_back(t->shape());
  row.shape = e.result.shape();
  row.dtype = std::string(dtype_name(e.result.dtype()));
  const bool composite = e.instr.kind == OpKind::Sdpa || e.instr.kind == OpKind::RmsNorm;
  if (!composite && runtime::reference_kernels().find(e.instr.kind) == nullptr) {
    row.status = "no_reference";
    row.note = std::string(runtime::reference_kernels().reason(e.instr.kind));
  } else {
    try {
      std::vector<Tensor> operands;
      operands.reserve(e.operands.size());
      for (const Tensor* t : e.operands) operands.push_back(host_view(*t));
      const std::optional<Tensor> fused = composite_reference(e.instr, operands);
      const Tensor reference =
          fused ? *fused : runtime::run_reference_op(Op{e.instr.kind, {}, kNoValue, e.instr.attrs}, operands);
      comparators::ComparisonConfig config;
      config.required_pcc = thresholds_.required_pcc;
      config.scale_tolerance = thresholds_.scale_tolerance;
      const Tensor result = host_view(e.result);
      const comparators::OutputMetrics m = comparators::compare_tensors(row.origin, result, reference, config);
      row.status = "checked";
      row.pcc = m.pcc;
      row.atol = m.atol;
      row.norm_ratio = m.norm_ratio;
      row.past = !m.passed;
      row.note = m.failure;
      if (is_elementwise(e.instr.kind) && e.result.dtype() == DType::BF16 && result.shape() == reference.shape()) {
        row.max_ulp = comparators::max_bf16_ulp_error(result, reference);
        if (!(row.max_ulp <= thresholds_.max_ulp)) {
          char note[160];
          std::snprintf(note, sizeof note, "an element is %.4g bf16 ulp from the reference (allowed %.4g)", row.max_ulp,
                        thresholds_.max_ulp);
          row.note += (row.note.empty() ? "" : "; ") + std::string(note);
          row.past = true;
        }
      }
    } catch (const std::exception& ex) {
      row.status = "error";
      row.note = ex.what();
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  rows_.push_back(std::move(row));
}

std::vector<OpGoldenRow> OpGolden::finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<OpGoldenRow> rows = std::move(rows_);
  rows_.clear();
  std::stable_sort(rows.begin(), rows.end(), [](const OpGoldenRow& a, const OpGoldenRow& b) {
    return a.index != b.index ? a.index < b.index : a.chip < b.chip;
  });
  for (OpGoldenRow& r : rows) {
    if (r.past) {
      r.first = true;
      break;
    }
  }
  return rows;
}

const OpGoldenRow* first_past(const std::vector<OpGoldenRow>& rows) {
  for (const OpGoldenRow& r : rows) {
    if (r.first) return &r;
  }
  return nullptr;
}

std::string describe_row(const OpGoldenRow& row) {
  char figures[128];
  int n = std::snprintf(figures, sizeof figures, "local pcc %.6f, scale %.4f, max abs error %.4g", row.pcc,
                        row.norm_ratio, row.atol);
  if (!std::isnan(row.max_ulp) && n > 0 && static_cast<size_t>(n) < sizeof figures) {
    std::snprintf(figures + n, sizeof figures - static_cast<size_t>(n), ", %.3g ulp", row.max_ulp);
  }
  return row.origin + (row.layer.empty() ? "" : " in " + row.layer) + " (device op " + std::to_string(row.index) + ", chip " + std::to_string(row.chip) + ", " +
         row.dtype + shape_to_string(row.shape) + "): " + figures;
}

std::string op_golden_jsonl(const std::vector<OpGoldenRow>& rows) {
  std::string out;
  for (const OpGoldenRow& r : rows) {
    nlohmann::json j;
    j["index"] = r.index;
    j["chip"] = r.chip;
    j["op"] = r.op;
    j["origin"] = r.origin;
    j["layer"] = r.layer;
    nlohmann::json shapes = nlohmann::json::array();
    for (const Shape& s : r.operand_shapes) shapes.push_back(s);
    j["operand_shapes"] = shapes;
    j["shape"] = r.shape;
    j["dtype"] = r.dtype;
    j["status"] = r.status;
    if (r.status == "checked") {
      // JSON has no inf/NaN: a non-finite figure is written as null.
      auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); };
      j["pcc"] = num(r.pcc);
      j["atol"] = num(r.atol);
      j["norm_ratio"] = num(r.norm_ratio);
      if (!std::isnan(r.max_ulp)) j["max_ulp"] = num(r.max_ulp);
      j["past_threshold"] = r.past;
      j["first_past_threshold"] = r.first;
    }
    if (!r.note.empty()) j["note"] = r.note;
    out += j.dump() + "\n";
  }
  return out;
}

}  // namespace meshtest::runner
