// The roofline cost model of one simulated chip (see cost_model.h for the
// terms). Per-op vector costs are modelled figures, stated here once.
#include "runtime/device/cost_model.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/op_def.h"
#include "core/tensor.h"

namespace meshtest::runtime {

namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;

// SFPU passes per output element: transcendentals are polynomial
// approximations over several passes; softmax (max, exp, sum, scale) and the
// norms (mean, variance, scale, shift) are several reductions and maps.
double vector_passes(OpKind kind) {
  switch (kind) {
    case OpKind::Gelu: case OpKind::Tanh: case OpKind::Exp: case OpKind::Log: case OpKind::Erf:
    case OpKind::Sigmoid: case OpKind::Silu: case OpKind::Sin: case OpKind::Cos: case OpKind::Sqrt:
    case OpKind::Rsqrt: case OpKind::Div:
      return 4;
    case OpKind::Softmax:
      return 6;
    case OpKind::LayerNorm: case OpKind::RmsNorm: case OpKind::BatchNorm:
      return 8;
    default:
      return 1;
  }
}

// Matrix-engine TFLOPS for a GEMM whose weight (second) operand is `weight`
// at `phases` fidelity phases.
double matrix_tflops(const ChipPerf& perf, DType weight, int phases) {
  const double p = std::max(1, phases);
  const double tflops = weight == DType::BFP8_B ? perf.tflops_bfp8 * 2.0 / p : perf.tflops_bf16 * 4.0 / p;
  return std::min(tflops, perf.tflops_lofi);
}

const TensorType& type_of(const DeviceProgram& program, int32_t id) { return program.buffers.at(id).type; }

int64_t numel(const TensorType& t) { return shape_numel(t.shape); }

// Matrix-engine flops of a GEMM-class instruction (0 for any other op).
double gemm_flops(const DeviceProgram& program, const DeviceInstr& in) {
  const TensorType& out = type_of(program, in.output);
  auto operand = [&](size_t i) -> const TensorType& { return type_of(program, in.inputs[i]); };
  auto last = [](const TensorType& t) { return t.shape.empty() ? int64_t{1} : t.shape.back(); };
  switch (in.kind) {
    case OpKind::Matmul: case OpKind::Linear:
      return 2.0 * static_cast<double>(numel(out)) * static_cast<double>(last(operand(0)));
    case OpKind::Conv2d: {  // weight [O, C/g, KH, KW]: each output takes C/g·KH·KW MACs
      const TensorType& w = operand(1);
      return 2.0 * static_cast<double>(numel(out)) * static_cast<double>(numel(w) / std::max<int64_t>(1, w.shape[0]));
    }
    case OpKind::Conv2dBackwardInput: {  // (dy, w): as the forward conv of the same geometry
      const TensorType& w = operand(1);
      return 2.0 * static_cast<double>(numel(operand(0))) *
             static_cast<double>(numel(w) / std::max<int64_t>(1, w.shape[0]));
    }
    case OpKind::Conv2dBackwardWeight:  // (x, dy) -> dw
      return 2.0 * static_cast<double>(numel(operand(1))) *
             static_cast<double>(numel(out) / std::max<int64_t>(1, out.shape[0]));
    case OpKind::DotGeneral: {  // each output sums over the lhs contracting dims
      double k = 1;
      for (int64_t d : in.attrs.get_ints("lhs_contracting_dims", {})) {
        k *= static_cast<double>(operand(0).shape.at(static_cast<size_t>(d)));
      }
      return 2.0 * static_cast<double>(numel(out)) * k;
    }
    case OpKind::Convolution: {  // each output takes (kernel elements / output features) MACs
      const TensorType& w = operand(1);
      const int64_t outputs = w.shape.at(static_cast<size_t>(in.attrs.get_int("kernel_output_feature_dimension")));
      return 2.0 * static_cast<double>(numel(out)) * static_cast<double>(numel(w) / std::max<int64_t>(1, outputs));
    }
    case OpKind::Sdpa: {  // q [.., S, D], k [.., Sk, D]: Q·K^T and P·V
      const TensorType& k = operand(1);
      const int64_t sk = k.shape.size() >= 2 ? k.shape[k.shape.size() - 2] : 1;
      return 4.0 * static_cast<double>(numel(operand(0))) * static_cast<double>(sk);
    }
    default:
      return 0;
  }
}

// Elements the vector engine processes (softmax inside sdpa included).
double vector_elements(const DeviceProgram& program, const DeviceInstr& in) {
  if (in.kind == OpKind::Sdpa) {
    const TensorType& q = type_of(program, in.inputs[0]);
    const TensorType& k = type_of(program, in.inputs[1]);
    const int64_t sk = k.shape.size() >= 2 ? k.shape[k.shape.size() - 2] : 1;
    const int64_t d = q.shape.empty() ? 1 : q.shape.back();
    return static_cast<double>(numel(q) / std::max<int64_t>(1, d)) * static_cast<double>(sk) *
           vector_passes(OpKind::Softmax);
  }
  if (gemm_flops(program, in) > 0) return 0;
  // Reductions read more than they write: count the larger side.
  double elements = static_cast<double>(numel(type_of(program, in.output)));
  for (int32_t id : in.inputs) elements = std::max(elements, static_cast<double>(numel(type_of(program, id))));
  return elements * vector_passes(in.kind);
}

// Seconds of a collective over its ring, and the bytes it moves per chip.
std::pair<double, double> collective_cost(const DeviceProgram& program, const DeviceInstr& in, const ChipPerf& perf) {
  const double g = static_cast<double>(in.attrs.get_int("group_size", 1));
  if (g <= 1) return {0, 0};
  const double in_bytes = static_cast<double>(program.buffers.at(in.inputs[0]).device_bytes);
  const double out_bytes = static_cast<double>(program.buffers.at(in.output).device_bytes);
  const double whole = std::max(in_bytes, out_bytes);  // the gathered (or reduced) tensor
  double passes = 1;
  if (in.kind == OpKind::AllReduce) passes = 2;  // reduce-scatter then all-gather
  if (in.kind == OpKind::ShardSlice) return {0, 0};  // a local cut, no exchange
  const double moved = passes * whole * (g - 1) / g;
  const double seconds = moved / (perf.eth_gb_per_s * kGiga) + passes * (g - 1) * perf.eth_latency_us * 1e-6;
  return {seconds, moved};
}

}  // namespace

std::string_view bound_name(Bound bound) {
  switch (bound) {
    case Bound::Matrix: return "matrix";
    case Bound::Vector: return "vector";
    case Bound::Dram: return "dram";
    case Bound::L1: return "l1";
    case Bound::Links: return "links";
    case Bound::Overhead: return "overhead";
  }
  return "?";
}

ProgramCost model_program_cost(const DeviceProgram& program, const ChipSpec& chip) {
  const ChipPerf& perf = chip.perf;
  const double cores = static_cast<double>(chip.core_rows) * chip.core_cols;
  const double hz = perf.clock_ghz * kGiga;
  const double l1_bytes_per_s = perf.l1_bytes_per_cycle_per_core * cores * hz;
  const double vector_per_s = perf.vector_elems_per_cycle_per_core * cores * hz;
  ProgramCost cost;
  for (size_t i = 0; i < program.instrs.size(); ++i) {
    const DeviceInstr& in = program.instrs[i];
    InstrCost c;
    c.index = i;
    c.op = std::string(op_def(in.kind).name);
    c.origin = in.origin;
    double dram = 0, l1 = 0;
    auto touch = [&](int32_t id) {
      const DeviceBuffer& b = program.buffers.at(id);
      (b.space == MemorySpace::L1 ? l1 : dram) += static_cast<double>(b.device_bytes);
    };
    if (in.kind == OpKind::Embedding || in.kind == OpKind::EmbeddingShard) {
      // A gather reads the rows it returns, not the whole table.
      touch(in.inputs[0]);
      touch(in.output);
      touch(in.output);
    } else {
      for (int32_t id : in.inputs) touch(id);
      touch(in.output);
    }
    c.bytes = dram + l1;
    std::map<Bound, double> terms;
    terms[Bound::Dram] = dram / (perf.dram_gb_per_s * kGiga);
    terms[Bound::L1] = l1 / l1_bytes_per_s;
    if (op_def(in.kind).family == OpFamily::Collective) {
      terms[Bound::Links] = collective_cost(program, in, perf).first;
    } else {
      c.flops = gemm_flops(program, in);
      if (c.flops > 0) {
        const int phases = static_cast<int>(in.attrs.get_int("fidelity_phases", 4));
        const DType weight = in.inputs.size() > 1 ? type_of(program, in.inputs[1]).dtype : DType::BF16;
        terms[Bound::Matrix] = c.flops / (matrix_tflops(perf, weight, phases) * kTera);
      }
      terms[Bound::Vector] = vector_elements(program, in) / vector_per_s;
    }
    const double overhead = perf.op_overhead_us * 1e-6;
    const auto worst = std::max_element(terms.begin(), terms.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
    c.bound = worst->second > overhead ? worst->first : Bound::Overhead;
    c.seconds = worst->second + overhead;
    cost.seconds += c.seconds;
    cost.matrix_flops += c.flops;
    cost.instrs.push_back(std::move(c));
  }
  return cost;
}

std::vector<InstrCost> ProgramCost::top(size_t n) const {
  std::vector<InstrCost> sorted = instrs;
  std::stable_sort(sorted.begin(), sorted.end(), [](const InstrCost& a, const InstrCost& b) { return a.seconds > b.seconds; });
  if (sorted.size() > n) sorted.resize(n);
  return sorted;
}

std::string ProgramCost::top_ops_text(size_t n) const {
  struct Kind {
    double seconds = 0;
    std::map<Bound, double> by_bound;
  };
  std::map<std::string, Kind> kinds;
  for (const InstrCost& c : instrs) {
    Kind& k = kinds[c.op];
    k.seconds += c.seconds;
    k.by_bound[c.bound] += c.seconds;
  }
  std::vector<std::pair<std::string, Kind>> sorted(kinds.begin(), kinds.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  std::ostringstream out;
  for (size_t i = 0; i < sorted.size() && i < n; ++i) {
    const Kind& k = sorted[i].second;
    const auto bound = std::max_element(k.by_bound.begin(), k.by_bound.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
    const double share = seconds > 0 ? 100.0 * k.seconds / seconds : 0;
    out << (i ? ", " : "") << sorted[i].first << " " << static_cast<int>(share + 0.5) << "% "
        << bound_name(bound->first);
  }
  return out.str();
}

}  // namespace meshtest::runtime
