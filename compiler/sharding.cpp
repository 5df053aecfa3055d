// Sharding propagation: one rule per op family, falling back to gathering.
#include "compiler/sharding.h"

#include <algorithm>
#include <numeric>

#include "compiler/graph_rewrite.h"
#include "core/error.h"

namespace meshtest::compiler {

namespace {

// One output dim's split from the operands that map onto it: the first
// operand decides (`set` turns true); a later one split differently is a
// conflict (false).
template <class Axes>
bool join_split(Axes& slot, bool& set, const Axes& axes) {
  if (!set) {
    slot = axes;
    set = true;
    return true;
  }
  return slot == axes;
}

using Dims = std::vector<std::vector<int>>;

struct Local {
  ValueId value = kNoValue;  // in the local graph
  Sharding sharding;
};

// Builds the local graph op by op.
class Sharder {
 public:
  Sharder(const Graph& global, const ShardingRequest& request, ShardingPlan& plan)
      : global_(global), mesh_(request.mesh), plan_(plan), map_(global.values.size()), producer_(global.values.size(), -1) {
    plan_.mesh = mesh_;
    for (size_t i = 0; i < global.ops.size(); ++i) producer_[static_cast<size_t>(global.ops[i].output)] = static_cast<int>(i);
  }

  Graph run(const ShardingRequest& request) {
    out_.name = global_.name;
    for (const Param& p : global_.params) add_param(p, request);
    for (size_t i = 0; i < global_.ops.size(); ++i) shard_op(i);
    for (const GraphOutput& o : global_.outputs) {
      Local l = map_[static_cast<size_t>(o.value)];
      if (const auto it = request.output_specs.find(o.name); it != request.output_specs.end()) {
        l = leave_as(o, l, to_sharding("output '" + o.name + "'", gtype(o.value), it->second));
      }
      out_.outputs.push_back({o.name, l.value});
      if (!l.sharding.is_replicated()) plan_.outputs[o.name] = l.sharding;
    }
    return std::move(out_);
  }

 private:
  // ---- parameters ----
  void add_param(const Param& p, const ShardingRequest& request) {
    const TensorType& type = global_.type(p.value);
    Sharding s = Sharding::replicated(type.shape.size());
    if (const auto it = request.specs.find(p.name); it != request.specs.end()) s = to_sharding("param '" + p.name + "'", type, it->second);
    Param local = p;
    local.value = out_.add_value({type.dtype, local_shape(mesh_, type.shape, s)}, p.name);
    if (!s.is_replicated()) {
      local.data = Tensor();
      local.init.reset();
      plan_.params[p.name] = s;
    }
    out_.params.push_back(std::move(local));
    map_[static_cast<size_t>(p.value)] = {out_.params.back().value, s};
  }

  // `what`: "param 'wq'" or "output 'grad/wq'", for messages.
  Sharding to_sharding(const std::string& what, const TensorType& type, const NamedPartitionSpec& spec) {
    if (spec.size() > type.shape.size()) {
      throw CompileError("shard spec of " + what + " has " + std::to_string(spec.size()) + " dims, it is " +
                         type_to_string(type));
    }
    Sharding s = Sharding::replicated(type.shape.size());
    std::vector<bool> used(mesh_.shape.size(), false);
    for (size_t d = 0; d < spec.size(); ++d) {
      for (const std::string& axis : spec[d]) {
        const int a = mesh_.axis_index(axis);
        if (a < 0) throw CompileError("shard spec of " + what + ": mesh " + mesh_.text() + " has no axis '" + axis + "'");
        if (used[static_cast<size_t>(a)]) throw CompileError("shard spec of " + what + " uses axis '" + axis + "' twice");
        used[static_cast<size_t>(a)] = true;
        s.dims[d].push_back(a);
      }
    }
    try {
      local_shape(mesh_, type.shape, s);
    } catch (const Error& e) {
      plan_.fallbacks.push_back(what + ": " + e.what() + "; kept replicated");
      return Sharding::replicated(type.shape.size());
    }
    return s;
  }

  // Output `o` (now `l`) in split `want`: cut in place from whole dims,
  // gathered first where it is split otherwise.
  Local leave_as(const GraphOutput& o, Local l, const Sharding& want) {
    if (const std::optional<ValueId> v = split_to(o.value, l, want)) return {*v, want};
    l = gather(l);
    return {*split_to(o.value, l, want), want};
  }

  // ---- emission helpers ----
  static std::vector<ValueId> values_of(const std::vector<Local>& in) {
    std::vector<ValueId> values;
    for (const Local& l : in) values.push_back(l.value);
    return values;
  }

  const TensorType& gtype(ValueId global_value) const { return global_.type(global_value); }

  ValueId emit(OpKind kind, std::vector<ValueId> inputs, Attrs attrs) {
    std::vector<TensorType> types;
    for (ValueId v : inputs) types.push_back(out_.type(v));
    Op op{kind, std::move(inputs), kNoValue, std::move(attrs)};
    op.output = out_.add_value(infer_type(kind, types, op.attrs));
    out_.ops.push_back(std::move(op));
    return out_.ops.back().output;
  }

  ValueId collective(OpKind kind, ValueId v, const std::vector<int>& axes, Attrs attrs) {
    attrs.set("axes", axes_text(mesh_, axes));
    attrs.set("group_size", axes_size(mesh_, axes));
    ++plan_.collectives;
    return emit(kind, {v}, std::move(attrs));
  }

  // The operand fully replicated (all_gather per split dim).
  Local gather(Local l) {
    for (size_t d = 0; d < l.sharding.dims.size(); ++d) {
      if (l.sharding.dims[d].empty()) continue;
      l.value = collective(OpKind::AllGather, l.value, l.sharding.dims[d], {{"dim", static_cast<int64_t>(d)}});
      l.sharding.dims[d].clear();
    }
    return l;
  }

  Local all_reduce(ValueId v, const std::vector<int>& axes, Sharding s) {
    return {collective(OpKind::AllReduce, v, axes, {}), std::move(s)};
  }

  // ---- the rules ----
  void shard_op(size_t index) {
    const Op& op = global_.ops[index];
    std::vector<Local> in;
    for (ValueId v : op.inputs) in.push_back(map_[static_cast<size_t>(v)]);
    const size_t out_rank = gtype(op.output).shape.size();
    std::optional<Local> result;
    std::string why;
    if (is_unary_elementwise(op.kind) || op.kind == OpKind::Cast) {
      result = Local{emit(op.kind, {in[0].value}, op.attrs), in[0].sharding};
    } else if (is_binary_elementwise(op.kind) || op.kind == OpKind::Greater) {
      result = broadcast_rule(op, in, out_rank, why);
    } else {
      switch (op.kind) {
        case OpKind::Constant: result = Local{emit(op.kind, {}, op.attrs), Sharding::replicated(out_rank)}; break;
        case OpKind::Linear: result = linear_rule(op, in, why); break;
        case OpKind::Matmul: result = matmul_rule(op, in, why); break;
        case OpKind::Embedding: result = embedding_rule(op, in, why); break;
        case OpKind::Reshape: result = reshape_rule(op, in[0], why); break;
        case OpKind::Transpose: {
          Sharding s = Sharding::replicated(out_rank);
          const auto perm = op.attrs.get_ints("perm");
          for (size_t j = 0; j < perm.size(); ++j) s.dims[j] = in[0].sharding.dims[static_cast<size_t>(perm[j])];
          result = Local{emit(op.kind, {in[0].value}, op.attrs), s};
          break;
        }
        case OpKind::Softmax:
        case OpKind::TopkMask:
        case OpKind::Slice:
          result = keep_unless_split(op, in[0], {op.attrs.get_int("axis")}, why);
          break;
        case OpKind::LayerNorm:
        case OpKind::RmsNorm: result = norm_rule(op, in, why); break;
        case OpKind::ReduceSum:
        case OpKind::ReduceMean:
        case OpKind::ReduceMax: result = reduce_rule(op, in[0], out_rank, why); break;
        case OpKind::Concat: result = concat_rule(op, in, why); break;
        case OpKind::Sdpa: result = batch_dims_rule(op, in, 2, why); break;
        case OpKind::Conv2d:
        case OpKind::MaxPool2d:
        case OpKind::AvgPool2d:
        case OpKind::GlobalAvgPool2d:
        case OpKind::BatchNorm:
        case OpKind::Conv2dBackwardInput:
        case OpKind::AvgPool2dBackward: result = data_parallel_rule(op, in, out_rank, 1, why); break;
        case OpKind::MaxPool2dBackward: result = data_parallel_rule(op, in, out_rank, 2, why); break;
        case OpKind::Conv2dBackwardWeight: result = weight_gradient_rule(op, in, out_rank, why); break;
        case OpKind::EmbeddingBackward: result = embedding_backward_rule(op, in, why); break;
        case OpKind::SliceBackward: result = slice_backward_rule(op, in[0], why); break;
        default: why = "no sharding rule for " + std::string(op_name(op.kind)); break;
      }
    }
    if (!result) result = replicated_fallback(index, op, in, out_rank, why);
    map_[static_cast<size_t>(op.output)] = std::move(*result);
  }

  // Gathers every split operand and runs the op replicated.
  Local replicated_fallback(size_t index, const Op& op, std::vector<Local>& in, size_t out_rank, const std::string& why) {
    bool gathered = false;
    std::vector<ValueId> values;
    for (Local& l : in) {
      gathered = gathered || !l.sharding.is_replicated();
      l = gather(l);
      values.push_back(l.value);
    }
    if (gathered) plan_.fallbacks.push_back(describe_op(global_, index) + ": " + why + "; gathered to replicated");
    return {emit(op.kind, values, op.attrs), Sharding::replicated(out_rank)};
  }

  // Whether replicated global value `v` is the same along its dim `d`, so
  // every chip can make its own shard of it without communication: a
  // constant fill, a dim of extent 1, or an elementwise op of such values
  // (autodiff's broadcasts of a scalar to a full shape, ViT's class token
  // expanded to the batch).
  bool free_along(ValueId v, size_t d, int depth = 0) const {
    if (!map_[static_cast<size_t>(v)].sharding.is_replicated()) return false;
    const Shape& shape = gtype(v).shape;
    if (shape[d] == 1) return true;
    const int i = producer_[static_cast<size_t>(v)];
    if (i < 0 || depth > 8) return false;
    const Op& op = global_.ops[static_cast<size_t>(i)];
    if (op.kind == OpKind::Constant) return true;
    if (!is_binary_elementwise(op.kind) && !is_unary_elementwise(op.kind) && op.kind != OpKind::Cast) return false;
    for (ValueId in : op.inputs) {
      const size_t rank = gtype(in).shape.size();
      if (d + rank >= shape.size() && !free_along(in, d + rank - shape.size(), depth + 1)) return false;
    }
    return true;
  }

  bool free_along_splits(ValueId v, const Sharding& s) const {
    for (size_t d = 0; d < s.dims.size(); ++d) {
      if (!s.dims[d].empty() && !free_along(v, d)) return false;
    }
    return true;
  }

  // `v`'s split under a broadcast to an output split `s` (dims of extent 1
  // and missing leading dims stay whole).
  Sharding broadcast_split(ValueId v, const Sharding& s) const {
    const Shape& shape = gtype(v).shape;
    Sharding vs = Sharding::replicated(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] != 1) vs.dims[d] = s.dims[d + s.dims.size() - shape.size()];
    }
    return vs;
  }

  // Makes replicated `v` again on every chip directly in split `s` (only
  // along dims free_along holds for).
  ValueId remake_split(ValueId v, const Sharding& s) {
    if (s.is_replicated()) return map_[static_cast<size_t>(v)].value;
    const Op& op = global_.ops[static_cast<size_t>(producer_[static_cast<size_t>(v)])];
    if (op.kind == OpKind::Constant) {
      Attrs attrs = op.attrs;
      attrs.set("shape", local_shape(mesh_, gtype(v).shape, s));
      return emit(OpKind::Constant, {}, attrs);
    }
    std::vector<ValueId> values;
    for (ValueId in : op.inputs) values.push_back(remake_split(in, broadcast_split(in, s)));
    return emit(op.kind, values, op.attrs);
  }

  // Splits an operand that is whole along some dims of `want` to `want`:
  // made again in the shard shape when it is a free replicated value, else
  // each chip keeps its block (shard_slice, no data moves). nullopt when the
  // operand is split differently from `want` somewhere.
  std::optional<ValueId> split_to(ValueId global_value, const Local& l, const Sharding& want) {
    if (l.sharding == want) return l.value;
    if (l.sharding.is_replicated() && free_along_splits(global_value, want)) return remake_split(global_value, want);
    ValueId v = l.value;
    for (size_t d = 0; d < want.dims.size(); ++d) {
      if (l.sharding.dims[d] == want.dims[d]) continue;
      if (!l.sharding.dims[d].empty()) return std::nullopt;
      v = collective(OpKind::ShardSlice, v, want.dims[d], {{"dim", static_cast<int64_t>(d)}});
    }
    return v;
  }

  static bool uses_an_axis_twice(const Sharding& s) {
    std::vector<int> all;
    for (const auto& d : s.dims) all.insert(all.end(), d.begin(), d.end());
    std::sort(all.begin(), all.end());
    return std::adjacent_find(all.begin(), all.end()) != all.end();
  }

  // numpy broadcasting: each output dim takes the split of the operands that
  // really have it (extent > 1); two different splits of one dim conflict.
  // An operand whole along a dim the others split follows them there
  // (split_to: remade when free, else sliced in place).
  std::optional<Local> broadcast_rule(const Op& op, const std::vector<Local>& in, size_t out_rank, std::string& why) {
    Sharding s = Sharding::replicated(out_rank);
    for (size_t j = 0; j < out_rank; ++j) {
      bool set = false;
      for (size_t k = 0; k < in.size(); ++k) {
        const Shape& shape = gtype(op.inputs[k]).shape;
        if (j + shape.size() < out_rank) continue;
        const size_t d = j + shape.size() - out_rank;
        if (shape[d] == 1 || in[k].sharding.dims[d].empty()) continue;
        if (!join_split(s.dims[j], set, in[k].sharding.dims[d])) {
          why = "operands split differently along dim " + std::to_string(j);
          return std::nullopt;
        }
      }
    }
    if (uses_an_axis_twice(s)) {
      why = "operands split over one mesh axis on different dims";
      return std::nullopt;
    }
    std::vector<ValueId> values;
    for (size_t k = 0; k < in.size(); ++k) {
      const std::optional<ValueId> v = split_to(op.inputs[k], in[k], broadcast_split(op.inputs[k], s));
      if (!v) {
        why = "operand " + std::to_string(k) + " split on a dim the result is not";
        return std::nullopt;
      }
      values.push_back(*v);
    }
    return Local{emit(op.kind, values, op.attrs), s};
  }

  std::optional<Local> linear_rule(const Op& op, std::vector<Local>& in, std::string& why) {
    const Sharding& x = in[0].sharding;
    const Sharding& w = in[1].sharding;
    const std::vector<int>& x_k = x.dims.back();
    if (w.dims[1] != x_k) {
      why = "linear contraction dim split differently on input and weight";
      return std::nullopt;
    }
    const bool partial = !x_k.empty();
    for (size_t d = 0; d + 1 < x.dims.size(); ++d) {
      for (int a : x.dims[d]) {
        if (std::find(w.dims[0].begin(), w.dims[0].end(), a) != w.dims[0].end()) {
          why = "linear output and input batch dims split over one mesh axis";
          return std::nullopt;
        }
      }
    }
    Sharding s = x;
    s.dims.back() = w.dims[0];
    if (partial && !w.dims[0].empty()) {
      why = "linear weight split on both dims";
      return std::nullopt;
    }
    const bool has_bias = in.size() == 3;
    if (has_bias && !partial && in[2].sharding.dims[0].empty() && !w.dims[0].empty()) {  // column-parallel
      if (const std::optional<ValueId> v = split_to(op.inputs[2], in[2], Sharding{{w.dims[0]}})) in[2] = {*v, Sharding{{w.dims[0]}}};
    }
    if (has_bias && in[2].sharding.dims[0] != (partial ? std::vector<int>{} : w.dims[0])) {
      why = "linear bias split differently from its output";
      return std::nullopt;
    }
    if (!partial) {
      std::vector<ValueId> values = {in[0].value, in[1].value};
      if (has_bias) values.push_back(in[2].value);
      return Local{emit(OpKind::Linear, values, op.attrs), s};
    }
    // Row-parallel: partial sums, one all_reduce, then the (replicated) bias.
    Local r = all_reduce(emit(OpKind::Linear, {in[0].value, in[1].value}, op.attrs), x_k, s);
    if (has_bias) r.value = emit(OpKind::Add, {r.value, in[2].value}, {});
    return r;
  }

  std::optional<Local> matmul_rule(const Op& op, std::vector<Local>& in, std::string& why) {
    const Shape& as = gtype(op.inputs[0]).shape;
    const Shape& bs = gtype(op.inputs[1]).shape;
    // A contraction dim split on one side only: the other side keeps the
    // matching block of its own (partial sums, all_reduced below).
    for (size_t k = 0; k < 2; ++k) {
      const size_t kd = k == 0 ? as.size() - 1 : bs.size() - 2;
      const size_t od = k == 0 ? bs.size() - 2 : as.size() - 1;
      const auto& other = in[1 - k].sharding.dims[od];
      if (!in[k].sharding.dims[kd].empty() || other.empty()) continue;
      Sharding want = in[k].sharding;
      want.dims[kd] = other;
      if (uses_an_axis_twice(want)) continue;
      if (const std::optional<ValueId> v = split_to(op.inputs[k], in[k], want)) in[k] = {*v, want};
    }
    const Sharding& a = in[0].sharding;
    const Sharding& b = in[1].sharding;
    const size_t out_rank = gtype(op.output).shape.size();
    const std::vector<int>& a_k = a.dims[as.size() - 1];
    const std::vector<int>& b_k = b.dims[bs.size() - 2];
    if (a_k != b_k) {
      why = "matmul contraction dim split differently on its operands";
      return std::nullopt;
    }
    Sharding s = Sharding::replicated(out_rank);
    // Batch dims broadcast like an elementwise op.
    for (size_t j = 0; j + 2 < out_rank; ++j) {
      bool set = false;
      for (size_t k = 0; k < 2; ++k) {
        const Shape& shape = k == 0 ? as : bs;
        const size_t batch_rank = shape.size() - 2;
        if (j + batch_rank < out_rank - 2) continue;
        const size_t d = j + batch_rank - (out_rank - 2);
        if (shape[d] == 1) continue;
        if (!join_split(s.dims[j], set, in[k].sharding.dims[d])) {
          why = "matmul batch dim " + std::to_string(j) + " split differently on its operands";
          return std::nullopt;
        }
      }
    }
    s.dims[out_rank - 2] = a.dims[as.size() - 2];
    s.dims[out_rank - 1] = b.dims[bs.size() - 1];
    Sharding with_contraction = s;  // the partial sums' axes count as used too
    with_contraction.dims.push_back(a_k);
    if (uses_an_axis_twice(with_contraction)) {
      why = "matmul result would be split twice over one mesh axis";
      return std::nullopt;
    }
    const ValueId v = emit(OpKind::Matmul, {in[0].value, in[1].value}, op.attrs);
    if (a_k.empty()) return Local{v, s};
    return all_reduce(v, a_k, s);
  }

  // A vocabulary split (Megatron's vocab-parallel embedding): each chip looks
  // up the ids in its rows (embedding_shard, zeros for other chips' rows,
  // its first row from a small replicated table of starts cut by
  // shard_slice), and one all_reduce over the split's axes adds the parts.
  std::optional<Local> embedding_rule(const Op& op, std::vector<Local>& in, std::string& why) {
    const Sharding& table = in[1].sharding;
    Sharding s = in[0].sharding;
    s.dims.push_back(table.dims[1]);
    const std::vector<int>& vocab_axes = table.dims[0];
    if (vocab_axes.empty()) return Local{emit(op.kind, {in[0].value, in[1].value}, op.attrs), s};
    Sharding with_vocab = s;
    with_vocab.dims.back().insert(with_vocab.dims.back().end(), vocab_axes.begin(), vocab_axes.end());
    if (uses_an_axis_twice(with_vocab)) {
      why = "embedding table split over the vocabulary on axes its ids are split over";
      return std::nullopt;
    }
    const int64_t group = axes_size(mesh_, vocab_axes);
    const int64_t rows = out_.type(in[1].value).shape[0];  // this chip's rows
    std::vector<int64_t> starts(static_cast<size_t>(group));
    for (int64_t r = 0; r < group; ++r) starts[static_cast<size_t>(r)] = r * rows;
    const ValueId all_starts = add_constant_param("shard/vocab_starts/op" + std::to_string(out_.ops.size()),
                                                  Tensor::from_i64({group}, starts));
    const ValueId start = collective(OpKind::ShardSlice, all_starts, vocab_axes, {{"dim", int64_t{0}}});
    return all_reduce(emit(OpKind::EmbeddingShard, {in[0].value, in[1].value, start}, {}), vocab_axes, s);
  }

  // A replicated weight of the local graph holding `data`.
  ValueId add_constant_param(const std::string& name, Tensor data) {
    Param p;
    p.name = name;
    p.kind = ParamKind::Weight;
    p.value = out_.add_value({data.dtype(), data.shape()}, name);
    p.data = std::move(data);
    out_.params.push_back(std::move(p));
    return out_.params.back().value;
  }

  // Groups of consecutive non-1 dims with equal products; a split may sit on
  // the leading dim of a group and moves to the leading dim of its image.
  std::optional<Local> reshape_rule(const Op& op, const Local& x, std::string& why) {
    const Shape& is = gtype(op.inputs[0]).shape;
    const Shape& os = gtype(op.output).shape;
    Sharding s = Sharding::replicated(os.size());
    std::vector<size_t> id, od;
    for (size_t d = 0; d < is.size(); ++d) {
      if (is[d] != 1) id.push_back(d);
    }
    for (size_t d = 0; d < os.size(); ++d) {
      if (os[d] != 1) od.push_back(d);
    }
    size_t i = 0, o = 0;
    while (i < id.size() && o < od.size()) {
      const size_t i0 = i, o0 = o;
      int64_t pi = is[id[i++]], po = os[od[o++]];
      while (pi != po) {
        if (pi < po && i < id.size()) pi *= is[id[i++]];
        else if (po < pi && o < od.size()) po *= os[od[o++]];
        else break;
      }
      for (size_t k = i0 + 1; k < i; ++k) {
        if (!x.sharding.dims[id[k]].empty()) {
          why = "reshape merges a split dim into a more major one";
          return std::nullopt;
        }
      }
      const auto& axes = x.sharding.dims[id[i0]];
      if (axes.empty()) continue;
      if (os[od[o0]] % axes_size(mesh_, axes) != 0) {
        why = "reshape leaves no dim the split divides";
        return std::nullopt;
      }
      s.dims[od[o0]] = axes;
    }
    Attrs attrs = op.attrs;
    attrs.set("shape", local_shape(mesh_, os, s));
    return Local{emit(op.kind, {x.value}, attrs), s};
  }

  std::optional<Local> keep_unless_split(const Op& op, const Local& x, std::vector<int64_t> axes, std::string& why) {
    const int64_t rank = static_cast<int64_t>(x.sharding.dims.size());
    for (int64_t a : axes) {
      if (!x.sharding.dims[static_cast<size_t>(normalize_axis(a, rank))].empty()) {
        why = std::string(op_name(op.kind)) + " along a split dim";
        return std::nullopt;
      }
    }
    return Local{emit(op.kind, {x.value}, op.attrs), x.sharding};
  }

  std::optional<Local> norm_rule(const Op& op, const std::vector<Local>& in, std::string& why) {
    for (size_t k = 1; k < in.size(); ++k) {
      if (!in[k].sharding.is_replicated()) {
        why = "norm parameters are split";
        return std::nullopt;
      }
    }
    if (!in[0].sharding.dims.back().empty()) {
      why = "norm over a split dim";
      return std::nullopt;
    }
    return Local{emit(op.kind, values_of(in), op.attrs), in[0].sharding};
  }

  std::optional<Local> reduce_rule(const Op& op, const Local& x, size_t out_rank, std::string& why) {
    const int64_t rank = static_cast<int64_t>(x.sharding.dims.size());
    std::vector<bool> reduced(static_cast<size_t>(rank), false);
    std::vector<int> split_axes;
    for (int64_t a : op.attrs.get_ints("axes")) {
      const auto d = static_cast<size_t>(normalize_axis(a, rank));
      reduced[d] = true;
      split_axes.insert(split_axes.end(), x.sharding.dims[d].begin(), x.sharding.dims[d].end());
    }
    if (!split_axes.empty() && op.kind != OpKind::ReduceSum) {
      why = std::string(op_name(op.kind)) + " over a split dim";
      return std::nullopt;
    }
    const bool keepdim = op.attrs.get_int("keepdim", 0) != 0;
    Sharding s = Sharding::replicated(out_rank);
    size_t j = 0;
    for (size_t d = 0; d < reduced.size(); ++d) {
      if (!reduced[d]) s.dims[j++] = x.sharding.dims[d];
      else if (keepdim) ++j;
    }
    const ValueId v = emit(op.kind, {x.value}, op.attrs);
    if (split_axes.empty()) return Local{v, s};
    std::sort(split_axes.begin(), split_axes.end());
    return all_reduce(v, split_axes, s);
  }

  // Operands split alike, not along the concat dim; one whole where the others
  // are split follows them (split_to).
  std::optional<Local> concat_rule(const Op& op, const std::vector<Local>& in, std::string& why) {
    const size_t axis = static_cast<size_t>(normalize_axis(op.attrs.get_int("axis"), static_cast<int64_t>(in[0].sharding.dims.size())));
    Sharding s = in[0].sharding;
    for (const Local& l : in) {
      if (!l.sharding.is_replicated()) {
        s = l.sharding;
        break;
      }
    }
    std::vector<ValueId> values;
    for (size_t k = 0; k < in.size(); ++k) {
      const std::optional<ValueId> v = s.dims[axis].empty() ? split_to(op.inputs[k], in[k], s) : std::nullopt;
      if (!v) {
        why = "concat of operands split differently or along the concat dim";
        return std::nullopt;
      }
      values.push_back(*v);
    }
    return Local{emit(op.kind, values, op.attrs), s};
  }

  // Ops whose last `inner` dims must stay whole and whose leading dims are
  // batch dims, split alike on every operand (sdpa: heads, batch).
  std::optional<Local> batch_dims_rule(const Op& op, const std::vector<Local>& in, size_t inner, std::string& why) {
    const size_t out_rank = gtype(op.output).shape.size();
    Sharding s = Sharding::replicated(out_rank);
    for (size_t k = 0; k < in.size(); ++k) {
      const Shape& shape = gtype(op.inputs[k]).shape;
      const auto& dims = in[k].sharding.dims;
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d].empty()) continue;
        const size_t j = d + out_rank - dims.size();
        if (d + inner >= dims.size() || shape[d] == 1 || (!s.dims[j].empty() && s.dims[j] != dims[d])) {
          why = std::string(op_name(op.kind)) + " operands split on inner or mismatched dims";
          return std::nullopt;
        }
        s.dims[j] = dims[d];
      }
    }
    for (size_t k = 0; k < in.size(); ++k) {  // every operand with a batch dim must carry its split
      const Shape& shape = gtype(op.inputs[k]).shape;
      for (size_t d = 0; d + inner < shape.size(); ++d) {
        const size_t j = d + out_rank - shape.size();
        if (shape[d] != 1 && in[k].sharding.dims[d] != s.dims[j]) {
          why = std::string(op_name(op.kind)) + " operands split on mismatched batch dims";
          return std::nullopt;
        }
      }
    }
    return Local{emit(op.kind, values_of(in), op.attrs), s};
  }

  // The dim-0 (batch) split shared by the first `batched` operands, every
  // other dim and operand replicated; nullopt (with `why`) otherwise.
  std::optional<std::vector<int>> batch_split(const Op& op, const std::vector<Local>& in, size_t batched,
                                              std::string& why) {
    for (size_t k = 0; k < in.size(); ++k) {
      const auto& dims = in[k].sharding.dims;
      if (k < batched && dims[0] != in[0].sharding.dims[0]) {
        why = std::string(op_name(op.kind)) + " operands split differently on the batch dim";
        return std::nullopt;
      }
      for (size_t d = (k < batched ? 1 : 0); d < dims.size(); ++d) {
        if (!dims[d].empty()) {
          why = std::string(op_name(op.kind)) + " with a split other than the batch dim";
          return std::nullopt;
        }
      }
    }
    return in[0].sharding.dims[0];
  }

  // conv / pools / batch_norm and their input gradients: only a dim-0
  // (batch) split of the first `batched` operands, which the result keeps.
  std::optional<Local> data_parallel_rule(const Op& op, const std::vector<Local>& in, size_t out_rank, size_t batched,
                                          std::string& why) {
    const std::optional<std::vector<int>> axes = batch_split(op, in, batched, why);
    if (!axes) return std::nullopt;
    Sharding s = Sharding::replicated(out_rank);
    s.dims[0] = *axes;
    Attrs attrs = op.attrs;  // input gradients name the (now local) shape they produce
    if (attrs.has("input_shape")) attrs.set("input_shape", local_shape(mesh_, attrs.get_ints("input_shape"), s));
    return Local{emit(op.kind, values_of(in), attrs), s};
  }

  // conv2d_backward_weight(x, dy) with the batch split: each chip's partial
  // weight gradient, summed over the batch's chips by one all_reduce (the
  // data-parallel gradient all-reduce).
  std::optional<Local> weight_gradient_rule(const Op& op, const std::vector<Local>& in, size_t out_rank,
                                            std::string& why) {
    const std::optional<std::vector<int>> axes = batch_split(op, in, in.size(), why);
    if (!axes) return std::nullopt;
    const ValueId v = emit(op.kind, values_of(in), op.attrs);
    if (axes->empty()) return Local{v, Sharding::replicated(out_rank)};
    return all_reduce(v, *axes, Sharding::replicated(out_rank));
  }

  // embedding_backward(ids[...], dy[..., D]) -> [V, D]: ids and dy's leading
  // dims split alike give partial tables summed by all_reduce; a split of D
  // (tensor parallel) stays on the table's D.
  std::optional<Local> embedding_backward_rule(const Op& op, const std::vector<Local>& in, std::string& why) {
    const auto& ids = in[0].sharding.dims;
    const auto& dy = in[1].sharding.dims;
    std::vector<int> partial;
    for (size_t d = 0; d < ids.size(); ++d) {
      if (ids[d] != dy[d]) {
        why = "embedding_backward ids and gradient split differently";
        return std::nullopt;
      }
      partial.insert(partial.end(), ids[d].begin(), ids[d].end());
    }
    Sharding s = Sharding::replicated(2);
    s.dims[1] = dy.back();
    const ValueId v = emit(op.kind, values_of(in), op.attrs);
    if (partial.empty()) return Local{v, s};
    std::sort(partial.begin(), partial.end());
    return all_reduce(v, partial, s);
  }

  // slice_backward keeps dy's split on every dim but the sliced one.
  std::optional<Local> slice_backward_rule(const Op& op, const Local& dy, std::string& why) {
    const int64_t rank = static_cast<int64_t>(dy.sharding.dims.size());
    if (!dy.sharding.dims[static_cast<size_t>(normalize_axis(op.attrs.get_int("axis"), rank))].empty()) {
      why = "slice_backward along a split dim";
      return std::nullopt;
    }
    Attrs attrs = op.attrs;
    attrs.set("input_shape", local_shape(mesh_, op.attrs.get_ints("input_shape"), dy.sharding));
    return Local{emit(op.kind, {dy.value}, attrs), dy.sharding};
  }

  const Graph& global_;
  Mesh mesh_;
  ShardingPlan& plan_;
  Graph out_;
  std::vector<Local> map_;
  std::vector<int> producer_;  // global value -> index of the op making it (-1: a parameter)
};

}  // namespace

static std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

Mesh parse_mesh(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) throw ParseError("mesh '" + text + "': expected SHAPE:AXES, e.g. 2x4:rows,cols");
  Mesh mesh;
  for (const std::string& d : split(text.substr(0, colon), 'x')) {
    try {
      mesh.shape.push_back(std::stoll(d));
    } catch (const std::exception&) {
      throw ParseError("mesh '" + text + "': '" + d + "' is not a number");
    }
    if (mesh.shape.back() <= 0) throw ParseError("mesh '" + text + "': extents must be positive");
  }
  mesh.axis_names = split(text.substr(colon + 1), ',');
  if (mesh.axis_names.size() != mesh.shape.size()) {
    throw ParseError("mesh '" + text + "': " + std::to_string(mesh.shape.size()) + " extents but " +
                     std::to_string(mesh.axis_names.size()) + " axis names");
  }
  return mesh;
}

NamedPartitionSpec parse_partition_spec(const std::string& text) {
  NamedPartitionSpec spec;
  for (const std::string& dim : split(text, ',')) {
    if (dim.empty()) throw ParseError("partition spec '" + text + "': empty entry (use _ for replicated)");
    spec.emplace_back();
    if (dim != "_") spec.back() = split(dim, '+');
  }
  return spec;
}

std::string ShardingRequest::fingerprint() const {
  std::string s = "mesh=" + mesh.text() + ":";
  for (const std::string& a : mesh.axis_names) s += a + ",";
  auto add_spec = [&s](const std::string& name, const NamedPartitionSpec& spec) {
    s += ";" + name + "=";
    for (const auto& dim : spec) {
      s += "(";
      for (const std::string& a : dim) s += a + ",";
      s += ")";
    }
  };
  for (const auto& [name, spec] : specs) add_spec(name, spec);
  s += ";outputs";
  for (const auto& [name, spec] : output_specs) add_spec(name, spec);
  return s;
}

std::string ShardingPlan::fallbacks_text() const {
  std::string s;
  for (const std::string& f : fallbacks) s += (s.empty() ? "" : "; ") + f;
  return s;
}

ShardingPlan shard_graph(Graph& graph, const ShardingRequest& request) {
  if (request.mesh.shape.size() != request.mesh.axis_names.size() || request.mesh.size() <= 0) {
    throw CompileError("shard: mesh " + request.mesh.text() + " needs one name per axis");
  }
  ShardingPlan plan;
  Sharder sharder(graph, request, plan);
  Graph local = sharder.run(request);
  remove_dead_ops(local);  // global constant fills that every use re-made in its shard shape
  graph = std::move(local);
  return plan;
}

NamedPartitionSpec output_partition_spec(const Graph& graph, const ShardingRequest& request, std::string_view output) {
  Graph local = graph;
  const ShardingPlan plan = shard_graph(local, request);
  for (const GraphOutput& o : graph.outputs) {
    if (o.name != output) continue;
    NamedPartitionSpec spec(graph.type(o.value).shape.size());
    const auto it = plan.outputs.find(o.name);
    if (it == plan.outputs.end()) return spec;
    for (size_t d = 0; d < spec.size(); ++d) {
      for (int axis : it->second.dims[d]) spec[d].push_back(request.mesh.axis_names[static_cast<size_t>(axis)]);
    }
    return spec;
  }
  throw CompileError("shard: the graph has no output '" + std::string(output) + "'");
}

}  // namespace meshtest::compiler
