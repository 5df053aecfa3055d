// Lowering: graph values become device buffers, graph ops become device
// instructions; weights are converted to their device dtype at load time.
#include "compiler/lower.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/error.h"
#include "core/mutation.h"
#include "core/parallel.h"
#include "core/simd.h"

namespace meshtest::compiler {

namespace {

// Elements (or bfp8_b blocks) per parallel conversion task.
constexpr int64_t kConvertChunk = int64_t{1} << 16;

// The bfp8_encoder_truncates mutant (core/mutation.h): `f` (f32) with every
// value cut toward zero to a multiple of its bfp8_b block's mantissa step,
// what an encoder that truncates instead of rounding keeps.
Tensor truncated_to_bfp8_steps(const Tensor& f) {
  Tensor out = Tensor::uninitialized(DType::F32, f.shape());
  std::copy(f.data<float>(), f.data<float>() + f.numel(), out.data<float>());
  float* v = out.data<float>();
  for (int64_t b = 0; b < bfp8_b_block_count(f.shape()); ++b) {
    const Bfp8BlockSpan span = bfp8_b_block_span(f.shape(), b);
    float largest = 0.0f;
    for (int64_t i = 0; i < span.count; ++i) largest = std::max(largest, std::fabs(v[span.first + i]));
    if (largest == 0.0f || !std::isfinite(largest)) continue;
    int exponent = 0;
    std::frexp(largest, &exponent);
    const float step = std::ldexp(1.0f, exponent - 7);  // 7 mantissa bits below the block's leading one
    for (int64_t i = 0; i < span.count; ++i) v[span.first + i] = std::trunc(v[span.first + i] / step) * step;
  }
  return out;
}

// Tensor::to with the common f32 -> bf16 / bfp8_b cases split across threads
// (same element and block functions, so bit-identical to Tensor::to).
Tensor convert_for_device(const Tensor& src, DType target) {
  if (src.dtype() == target) return src;
  if (!is_floating(target) || !is_floating(src.dtype())) return src.to(target);
  const Tensor f = src.dtype() == DType::F32 ? src : src.to(DType::F32);
  const float* in = f.data<float>();
  Tensor out = Tensor::uninitialized(target, f.shape());
  if (target == DType::BFP8_B) {
    auto* o = static_cast<uint8_t*>(out.raw_data());
    std::optional<Tensor> truncated;
    if (mutant_active(MutantId::Bfp8EncoderTruncates)) truncated = truncated_to_bfp8_steps(f);
    const float* encoded = truncated ? truncated->data<float>() : in;
    parallel_ranges(bfp8_b_block_count(f.shape()), kConvertChunk / kBfp8BlockSize,
                    [&](int64_t begin, int64_t end) { encode_bfp8_b_blocks(encoded, f.shape(), begin, end, o); });
  } else if (target == DType::BF16) {
    uint16_t* o = out.data<uint16_t>();
    parallel_ranges(f.numel(), kConvertChunk, [&](int64_t begin, int64_t end) {
      simd::f32_to_bf16(in + begin, o + begin, end - begin);
    });
  } else {
    std::copy(in, in + f.numel(), out.data<float>());
  }
  return out;
}

}  // namespace

DeviceProgram lower_graph(const Graph& graph) {
  const size_t num_values = graph.values.size();
  std::vector<bool> used(num_values, false);
  for (const Op& op : graph.ops) {
    for (ValueId v : op.inputs) used[static_cast<size_t>(v)] = true;
  }
  for (const GraphOutput& o : graph.outputs) used[static_cast<size_t>(o.value)] = true;

  DeviceProgram program;
  program.name = graph.name;
  std::vector<int32_t> buffer_of(num_values, -1);
  auto add_buffer = [&](ValueId value, BufferKind kind, const std::string& name) {
    DeviceBuffer b;
    b.id = static_cast<int32_t>(program.buffers.size());
    b.kind = kind;
    b.type = graph.type(value);
    b.name = name;
    b.value = value;
    buffer_of[static_cast<size_t>(value)] = b.id;
    program.buffers.push_back(std::move(b));
    return program.buffers.back().id;
  };

  for (const Param& p : graph.params) {
    if (!used[static_cast<size_t>(p.value)]) continue;
    const int32_t id = add_buffer(p.value, p.kind == ParamKind::Input ? BufferKind::Input : BufferKind::Weight, p.name);
    // Data the graph holds itself (folded by const-eval, or given in memory)
    // travels with the program; initializers and a file's data
    // (Param::data_source: the graph maps it) are materialized at load time,
    // so neither the program nor its compile cache entry copies them.
    if (p.kind == ParamKind::Weight && !p.init && p.data_source.empty() && p.data.defined() && p.data.numel() > 0) {
      program.weights[id] = p.data;
    }
  }

  program.instrs.reserve(graph.ops.size());
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    DeviceInstr instr;
    instr.kind = op.kind;
    for (ValueId v : op.inputs) instr.inputs.push_back(buffer_of[static_cast<size_t>(v)]);
    instr.output = add_buffer(op.output, BufferKind::Activation, "");
    instr.attrs = op.attrs;
    instr.origin = describe_op(graph, i);
    program.instrs.push_back(std::move(instr));
  }

  for (const GraphOutput& o : graph.outputs)
    program.outputs.emplace_back(o.name, buffer_of[static_cast<size_t>(o.value)]);
  return program;
}

Tensor lower_weight(const Graph& graph, const DeviceProgram& program, const DeviceBuffer& b) {
  Tensor t;
  if (auto it = program.weights.find(b.id); it != program.weights.end()) {
    t = it->second;
  } else {
    const Param* p = graph.find_param(b.name);
    if (p == nullptr) throw CompileError("weight '" + b.name + "' is not a parameter of graph '" + graph.name + "'");
    try {
      // A recipe weight bound for bf16 is generated straight into bf16 (the
      // same bits as f32 rounded: core/simd.h): half the bytes, no conversion.
      TensorType type = graph.type(p->value);
      if (!p->data.defined() && type.dtype == DType::F32 && b.type.dtype == DType::BF16) type.dtype = DType::BF16;
      t = materialize(*p, type);
    } catch (const CompileError&) {
      throw;
    } catch (const Error& e) {
      throw CompileError("weight '" + b.name + "': " + e.what());
    }
  }
  return convert_for_device(t, b.type.dtype);
}

void lower_weights(const Graph& graph, DeviceProgram& program) {
  std::vector<const DeviceBuffer*> weight_buffers;
  for (const DeviceBuffer& b : program.buffers) {
    if (b.kind == BufferKind::Weight) weight_buffers.push_back(&b);
  }
  std::vector<Tensor> data(weight_buffers.size());
  tbb::parallel_for(size_t{0}, weight_buffers.size(),
                    [&](size_t i) { data[i] = lower_weight(graph, program, *weight_buffers[i]); });
  for (size_t i = 0; i < weight_buffers.size(); ++i) program.weights[weight_buffers[i]->id] = std::move(data[i]);
}

}  // namespace meshtest::compiler
