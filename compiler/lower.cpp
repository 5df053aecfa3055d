// Lowering: graph values become device buffers (bf16 activations, weights in
// bf16 or bfp8_b, integers unchanged), graph ops become device instructions.
#include "compiler/lower.h"

#include <tbb/parallel_for.h>

#include <algorithm>

#include "core/error.h"

namespace meshtest::compiler {

namespace {

// True when operand `slot` of `op` is a GEMM weight operand (the one that
// options.weight_dtype applies to).
bool is_gemm_weight_slot(const Op& op, size_t slot) {
  switch (op.kind) {
    case OpKind::Matmul:
      return slot < 2;
    case OpKind::Linear:
    case OpKind::Conv2d:
      return slot == 1;
    default:
      return false;
  }
}

// A conv2d weight [O, C/g, KH, KW] lives on the device as the GEMM matrix
// [O, C/g*KH*KW]: tiling its 3x3 (or 1x1) trailing dims would pad each to a
// 32x32 tile and inflate the footprint up to 1024 times.
TensorType conv_weight_matrix_type(const TensorType& type) {
  if (type.shape.size() != 4) return type;
  return {type.dtype, {type.shape[0], type.shape[1] * type.shape[2] * type.shape[3]}};
}

// Chunk size for parallel conversions: a multiple of the bfp8_b block.
constexpr int64_t kConvertChunk = int64_t{kBfp8BlockSize} * 4096;

// Tensor::to with the common f32 -> bf16 / bfp8_b cases split across threads
// (same element functions, so bit-identical to Tensor::to).
Tensor convert_for_device(const Tensor& src, DType target) {
  if (src.dtype() == target) return src;
  if (!is_floating(target) || !is_floating(src.dtype())) return src.to(target);
  const Tensor f = src.dtype() == DType::F32 ? src : src.to(DType::F32);
  const int64_t n = f.numel();
  const float* in = f.data<float>();
  Tensor out(target, f.shape());
  const int64_t chunks = (n + kConvertChunk - 1) / kConvertChunk;
  tbb::parallel_for(int64_t{0}, chunks, [&](int64_t c) {
    const int64_t begin = c * kConvertChunk;
    const int64_t count = std::min(kConvertChunk, n - begin);
    if (target == DType::BF16) {
      uint16_t* o = out.data<uint16_t>();
      for (int64_t i = begin; i < begin + count; ++i) o[i] = f32_to_bf16(in[i]);
    } else if (target == DType::BFP8_B) {
      auto* o = static_cast<uint8_t*>(out.raw_data());
      encode_bfp8_b(in + begin, count, o + (begin / kBfp8BlockSize) * static_cast<int64_t>(kBfp8BlockBytes));
    } else {
      float* o = out.data<float>();
      std::copy(in + begin, in + begin + count, o + begin);
    }
  });
  return out;
}

}  // namespace

DType device_activation_dtype(DType graph_dtype) { return is_floating(graph_dtype) ? DType::BF16 : graph_dtype; }

DeviceProgram lower_graph(const Graph& graph, const CompileOptions& options) {
  if (options.weight_dtype != DType::BF16 && options.weight_dtype != DType::BFP8_B) {
    throw CompileError("weight dtype must be bf16 or bfp8_b, got " + std::string(dtype_name(options.weight_dtype)));
  }
  const size_t num_values = graph.values.size();
  std::vector<bool> used(num_values, false);
  std::vector<bool> non_gemm_use(num_values, false);  // used anywhere but a GEMM weight slot
  std::vector<bool> conv_weight(num_values, false);   // stored as a [O, C/g*KH*KW] matrix
  for (const Op& op : graph.ops) {
    for (size_t slot = 0; slot < op.inputs.size(); ++slot) {
      const auto v = static_cast<size_t>(op.inputs[slot]);
      used[v] = true;
      if (!is_gemm_weight_slot(op, slot)) non_gemm_use[v] = true;
      if (op.kind == OpKind::Conv2d && slot == 1) conv_weight[v] = true;
    }
  }
  for (const GraphOutput& o : graph.outputs) {
    used[static_cast<size_t>(o.value)] = true;
    non_gemm_use[static_cast<size_t>(o.value)] = true;
  }

  DeviceProgram program;
  program.name = graph.name;
  std::vector<int32_t> buffer_of(num_values, -1);
  auto add_buffer = [&](ValueId value, BufferKind kind, DType dtype, const std::string& name) {
    DeviceBuffer b;
    b.id = static_cast<int32_t>(program.buffers.size());
    b.kind = kind;
    b.type = {dtype, graph.type(value).shape};
    b.name = name;
    b.device_bytes = tile_padded_bytes(kind == BufferKind::Weight && conv_weight[static_cast<size_t>(value)]
                                           ? conv_weight_matrix_type(b.type)
                                           : b.type);
    buffer_of[static_cast<size_t>(value)] = b.id;
    program.buffers.push_back(std::move(b));
  };

  for (const Param& p : graph.params) {
    const auto v = static_cast<size_t>(p.value);
    if (!used[v]) continue;
    const DType declared = graph.type(p.value).dtype;
    if (p.kind == ParamKind::Input) {
      add_buffer(p.value, BufferKind::Input, device_activation_dtype(declared), p.name);
    } else {
      DType dtype = declared;
      if (is_floating(declared)) dtype = non_gemm_use[v] ? DType::BF16 : options.weight_dtype;
      add_buffer(p.value, BufferKind::Weight, dtype, p.name);
    }
  }

  program.instrs.reserve(graph.ops.size());
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    add_buffer(op.output, BufferKind::Activation, device_activation_dtype(graph.type(op.output).dtype), "");
    DeviceInstr instr;
    instr.kind = op.kind;
    for (ValueId v : op.inputs) instr.inputs.push_back(buffer_of[static_cast<size_t>(v)]);
    instr.output = buffer_of[static_cast<size_t>(op.output)];
    instr.attrs = op.attrs;
    instr.origin = describe_op(graph, i);
    program.instrs.push_back(std::move(instr));
  }

  for (const GraphOutput& o : graph.outputs)
    program.outputs.emplace_back(o.name, buffer_of[static_cast<size_t>(o.value)]);
  return program;
}

void lower_weights(const Graph& graph, DeviceProgram& program) {
  std::vector<const DeviceBuffer*> weight_buffers;
  for (const DeviceBuffer& b : program.buffers) {
    if (b.kind == BufferKind::Weight) weight_buffers.push_back(&b);
  }
  std::vector<Tensor> data(weight_buffers.size());
  tbb::parallel_for(size_t{0}, weight_buffers.size(), [&](size_t i) {
    const DeviceBuffer& b = *weight_buffers[i];
    const Param* p = graph.find_param(b.name);
    if (p == nullptr) throw CompileError("weight '" + b.name + "' is not a parameter of graph '" + graph.name + "'");
    Tensor t;
    try {
      t = materialize(*p, graph.type(p->value));
    } catch (const CompileError&) {
      throw;
    } catch (const Error& e) {
      throw CompileError("weight '" + b.name + "': " + e.what());
    }
    data[i] = convert_for_device(t, b.type.dtype);
  });
  for (size_t i = 0; i < weight_buffers.size(); ++i) program.weights[weight_buffers[i]->id] = std::move(data[i]);
}

}  // namespace meshtest::compiler
