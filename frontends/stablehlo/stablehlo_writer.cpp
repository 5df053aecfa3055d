// The StableHLO writer: the module, @main's signature (inputs, then weights
// in params order; meshtest.name / mhlo.sharding / jax.result_info), the
// walk over the graph's ops through the emitter table, the private
// decomposition functions of composites, and the weights file.
#include "frontends/stablehlo/stablehlo_writer.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/error.h"
#include "core/op_def.h"
#include "core/safetensors.h"
#include "frontends/stablehlo/stablehlo_emitters.h"
#include "frontends/stablehlo/stablehlo_text.h"

namespace meshtest::frontends::stablehlo {

// Module-wide state while @main is written: the private functions that
// composites call (one per distinct decomposition).
class ModuleWriter {
 public:
  // The name of a private function `signature` + `body` (reused when an
  // identical one exists), named after `stem` ("tenstorrent.gelu.impl").
  std::string function(const std::string& stem, const std::string& signature, const std::string& body) {
    const std::string key = signature + "\n" + body;
    if (const auto it = by_text_.find(key); it != by_text_.end()) return it->second;
    std::string name = stem;
    for (int n = 1; names_.count(name) != 0; ++n) name = stem + "_" + std::to_string(n);
    names_.insert(name);
    by_text_[key] = name;
    functions_ += "  func.func private @" + name + signature + " {\n" + body + "  }\n";
    return name;
  }
  const std::string& functions() const { return functions_; }

 private:
  std::map<std::string, std::string> by_text_;
  std::set<std::string> names_;
  std::string functions_;
};

namespace {

TensorType written(const TensorType& type) { return {written_dtype(type.dtype), type.shape}; }

std::string sanitized_symbol(const std::string& name) {
  std::string out;
  for (char ch : name) out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.') ? ch : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
  return out;
}

std::vector<const Param*> arguments(const Graph& graph, const WriteOptions& options) {
  std::vector<const Param*> args = graph.inputs();
  if (!options.inline_weights) {
    for (const Param* w : graph.weights()) args.push_back(w);
  }
  return args;
}

// A graph holding collectives (or shard_slice) is one chip's program.
bool is_per_chip_program(const Graph& graph) {
  for (const Op& op : graph.ops) {
    if (op_def(op.kind).family == OpFamily::Collective) return true;
  }
  return false;
}

// `{meshtest.kind = "weight", meshtest.name = "x", mhlo.sharding = "..."}`
// (sorted, as MLIR prints a dictionary).
std::string argument_attributes(const Param& param, const TensorType& type, const WriteOptions& options) {
  std::string attrs = "{";
  if (options.mark_weights && param.kind == ParamKind::Weight) attrs += "meshtest.kind = \"weight\", ";
  attrs += "meshtest.name = " + quoted(param.name);
  if (const auto it = options.shardings.find(param.name); it != options.shardings.end()) {
    if (!options.mesh) {
      throw CompileError("stablehlo writer: parameter '" + param.name +
                         "' has a sharding but WriteOptions has no mesh");
    }
    attrs += ", mhlo.sharding = " + quoted(hlo_sharding(*options.mesh, it->second, type.shape.size()));
  }
  return attrs + "}";
}

}  // namespace

void EmitContext::fail(const std::string& message) const {
  throw CompileError("stablehlo writer: " + describe_op(graph, op_index) + ": " + message);
}

int64_t EmitContext::get_int(const std::string& name) const { return OpAttrs(op_def(op.kind), op.attrs).get_int(name); }
double EmitContext::get_float(const std::string& name) const {
  return OpAttrs(op_def(op.kind), op.attrs).get_float(name);
}
std::string EmitContext::get_string(const std::string& name) const {
  return OpAttrs(op_def(op.kind), op.attrs).get_string(name);
}
std::vector<int64_t> EmitContext::get_ints(const std::string& name) const {
  return OpAttrs(op_def(op.kind), op.attrs).get_ints(name);
}

Val emit_fused(EmitContext& c, const std::string& composite_name, const std::string& attributes,
               const std::vector<Val>& operands, const TensorType& result, const Decomposition& decompose) {
  if (!c.options.composites) return decompose(c.fn, operands);
  FunctionBuilder body(static_cast<int>(operands.size()));
  std::vector<Val> args;
  std::string signature = "(";
  for (size_t i = 0; i < operands.size(); ++i) {
    args.push_back({"%arg" + std::to_string(i), operands[i].type});
    signature += (i > 0 ? ", " : "") + args.back().ssa + ": " + tensor_type(operands[i].type);
  }
  const Val r = decompose(body, args);
  if (r.type != result)
    c.fail("decomposition gives " + type_to_string(r.type) + ", expected " + type_to_string(result));
  body.emit_line("return " + r.ssa + " : " + tensor_type(result));
  signature += ") -> " + tensor_type(result);
  const std::string callee = c.module.function(composite_name + ".impl", signature, body.text());
  std::string text = "stablehlo.composite " + quoted(composite_name) + " ";
  for (size_t i = 0; i < operands.size(); ++i) text += (i > 0 ? ", " : "") + operands[i].ssa;
  text += " {";
  if (!attributes.empty()) text += "composite_attributes = {" + attributes + "}, ";
  text += "decomposition = @" + callee + "} : (" + types_of(operands) + ") -> " + tensor_type(result);
  return c.fn.emit(text, result);
}

std::vector<std::vector<int64_t>> replica_groups(const EmitContext& c, const std::string& axes) {
  if (!c.options.mesh) c.fail("a collective needs WriteOptions::mesh (its replica groups come from the mesh)");
  const Mesh& mesh = *c.options.mesh;
  const std::vector<int> axis_ids = parse_axes(mesh, axes);
  std::vector<std::vector<int64_t>> groups;
  std::set<int64_t> seen;
  for (int64_t chip = 0; chip < mesh.size(); ++chip) {
    if (seen.count(chip) != 0) continue;
    groups.push_back(group_members(mesh, axis_ids, chip));
    seen.insert(groups.back().begin(), groups.back().end());
  }
  return groups;
}

const OpTable<Emitter>& stablehlo_emitters() {
  static const OpTable<Emitter> table = [] {
    OpTable<Emitter> t("StableHLO emitter");
    add_elementwise_emitters(t);
    add_nn_emitters(t);
    add_shape_emitters(t);
    add_backward_emitters(t);
    add_collective_emitters(t);
    add_structural_emitters(t);
    return t;
  }();
  return table;
}

std::vector<std::string> stablehlo_argument_names(const Graph& graph, const WriteOptions& options) {
  std::vector<std::string> names;
  for (const Param* p : arguments(graph, options)) names.push_back(p->name);
  return names;
}

std::string write_stablehlo(const Graph& graph, const WriteOptions& options) {
  ModuleWriter module;
  const std::vector<const Param*> args = arguments(graph, options);
  FunctionBuilder fn(static_cast<int>(args.size()));
  std::vector<Val> values(graph.values.size());

  std::string header = "  func.func public @main(";
  for (size_t i = 0; i < args.size(); ++i) {
    const TensorType type = written(graph.type(args[i]->value));
    values[static_cast<size_t>(args[i]->value)] = {"%arg" + std::to_string(i), type};
    header += (i > 0 ? ", " : "") + values[static_cast<size_t>(args[i]->value)].ssa + ": " + tensor_type(type) + " " +
              argument_attributes(*args[i], type, options);
  }
  if (options.inline_weights) {
    for (const Param* w : graph.weights()) {
      const TensorType& declared = graph.type(w->value);
      values[static_cast<size_t>(w->value)] =
          fn.constant(dense_literal(materialize(*w, declared), written_dtype(declared.dtype)), written(declared));
    }
  }

  const OpTable<Emitter>& emitters = stablehlo_emitters();
  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op& op = graph.ops[i];
    EmitContext c{fn, module, graph, op, i, {}, written(graph.type(op.output)), options};
    for (ValueId in : op.inputs) {
      const Val& v = values.at(static_cast<size_t>(in));
      if (v.ssa.empty()) c.fail("operand %" + std::to_string(in) + " is not defined before its use");
      c.in.push_back(v);
    }
    const Emitter* emit = emitters.find(op.kind);
    if (emit == nullptr) {
      const std::string_view reason = emitters.reason(op.kind);
      c.fail("unsupported: " + std::string(reason.empty() ? "no StableHLO writing for this op" : reason));
    }
    Val result = (*emit)(c);
    if (result.type != c.out) {
      c.fail("wrote a result of " + type_to_string(result.type) + ", the op's type is " + type_to_string(c.out));
    }
    values[static_cast<size_t>(op.output)] = std::move(result);
  }

  std::string results, returned, returned_types;
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    const Val& v = values.at(static_cast<size_t>(graph.outputs[i].value));
    if (v.ssa.empty()) throw CompileError("stablehlo writer: output '" + graph.outputs[i].name + "' is never defined");
    const std::string sep = i > 0 ? ", " : "";
    results += sep + tensor_type(v.type) + " {jax.result_info = " + quoted(graph.outputs[i].name) + "}";
    returned += sep + v.ssa;
    returned_types += sep + tensor_type(v.type);
  }
  fn.emit_line("return " + returned + " : " + returned_types);

  const std::string name = options.module_name.empty() ? "jit_" + graph.name : options.module_name;
  // A chip's program (it holds collectives) runs once per chip as a replica;
  // a global graph with shardings is partitioned over the chips (GSPMD).
  const int64_t chips = options.mesh ? options.mesh->size() : 1;
  const bool per_chip = is_per_chip_program(graph);
  return "module @" + sanitized_symbol(name) +
         " attributes {mhlo.num_partitions = " + std::to_string(per_chip ? 1 : chips) +
         " : i32, mhlo.num_replicas = " + std::to_string(per_chip ? chips : 1) + " : i32} {\n" + header + ") -> (" +
         results + ") {\n" + fn.text() + "  }\n" + module.functions() + "}\n";
}

void write_stablehlo_weights(const Graph& graph, const std::string& path) {
  std::map<std::string, Tensor> tensors;
  for (const Param* w : graph.weights()) {
    const TensorType& declared = graph.type(w->value);
    tensors[w->name] = materialize(*w, declared).to(written_dtype(declared.dtype));
  }
  write_safetensors(path, tensors);
}

}  // namespace meshtest::frontends::stablehlo
