// Patterns of the imported graph folded back into meshtest's fused ops, so a
// program meshtest wrote (stablehlo_writer.h) reads back as the computation
// it was: the same ops, so the same bits on the CPU reference and the device
// (tests/frontends/stablehlo_roundtrip_test.cpp: the whole tiny zoo). Each
// pattern is the writer's spelling of an op and matches only where it means
// exactly what the op's OpDef line says, dtypes included (only f32/bf16 ops
// on non-empty tensors fold: the fused ops compute in f32); near misses stay
// the StableHLO ops they are (tests/frontends/stablehlo_import_patterns_test.cpp).
//
// Forward ops:
//  - convolution [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], rank 4, no
//    lhs_dilation (that is a transposed convolution), no window_reversal, one
//    batch group, symmetric padding -> conv2d{stride, padding, dilation, groups};
//  - dot_general contracting x's last dim with a [N, K] rhs's dim 1, no batch
//    dims -> linear; batch dims 0..r-3 on both, contracting (r-1, r-2) -> matmul;
//  - conv2d / linear (just made, used once) + broadcast_in_dim of a [C]
//    vector along the feature dim (1 / last) -> that op with the bias;
//  - reduce_window maximum from -inf, window [1, 1, kh, kw], no dilations,
//    symmetric spatial padding -> max_pool2d; the add form from +0 divided by
//    the splat kh*kw -> avg_pool2d (count_include_pad, the writer's spelling);
//  - e / broadcast(reduce add e) with e = exp(x - broadcast(reduce max x)),
//    over one axis -> softmax{axis};
//  - (reduce add over axes from +0) / splat(their element count) ->
//    reduce_mean{axes}; reshaped to [N, C, 1, 1] over {2, 3} ->
//    global_avg_pool2d; else reshaped putting the reduced dims back as 1s ->
//    keepdim 1;
//  - x * logistic(x) -> silu;
//  - select(x < 0, 0, x), compare not TOTALORDER -> relu (relu keeps -0 and
//    NaN; maximum(x, 0) makes -0 into +0, so JAX's relu stays maximum);
//  - convert(compare GT (a, b)) to a's float dtype -> greater;
//  - an operand of add / sub / mul / div / maximum / minimum / power
//    broadcast_in_dim'ed as numpy broadcasting would (trailing dims, each 1
//    or equal), the other operand of the result's shape -> the op
//    broadcasting by itself (after the patterns that look for the explicit
//    broadcasts); a matmul operand broadcast along batch dims only, where
//    matmul's batch broadcasting gives the same shape -> the matmul's own;
//  - transpose of a transpose whose permutations compose to the identity ->
//    the value itself (the sdpa composite takes the key untransposed).
// Backward ops (autodiff's, in training graphs):
//  - convolution [f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1] with the stride as
//    rhs dilation, the dilation as window stride, the groups as batch groups
//    and exactly the high padding that makes the weight's extent ->
//    conv2d_backward_weight;
//  - convolution [b, f, 0, 1]x[i, o, 0, 1]->[b, f, 0, 1] of dy with the
//    spatially reversed kernel (grouped: its rows regrouped by reshape,
//    transpose, reshape), lhs dilation = stride, padding d*(K-1)-p below and
//    H-(OH-1)*s-1+p above -> conv2d_backward_input;
//  - select_and_scatter select GE, scatter add from +0, a pool window ->
//    max_pool2d_backward;
//  - pad of dy with +0 along one axis (low, interior, high >= 0) ->
//    slice_backward{start = low, step = interior + 1};
//  - last, any reduce add from +0 left -> reduce_sum (keepdim as above).
// Not matched: gather / scatter as embedding / embedding_backward (they clamp
// / skip an out-of-range id where the ops report it; the writer's
// meshtest.embedding* composites carry those ops instead).
// The ops a pattern absorbs are dropped when nothing else uses them.
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "frontends/stablehlo/stablehlo_importer.h"

namespace meshtest::frontends::stablehlo {

namespace {

using K = OpKind;
using Ints = std::vector<int64_t>;
using GraphOp = meshtest::Op;  // not the MLIR syntax tree's Op

class PatternRewriter {
 public:
  explicit PatternRewriter(Graph& graph) : g_(graph), producer_(graph.values.size(), -1), uses_(graph.values.size(), 0) {
    for (size_t i = 0; i < g_.ops.size(); ++i) {
      producer_[static_cast<size_t>(g_.ops[i].output)] = static_cast<int>(i);
      for (ValueId v : g_.ops[i].inputs) ++uses_[static_cast<size_t>(v)];
    }
    for (const GraphOutput& o : g_.outputs) ++uses_[static_cast<size_t>(o.value)];
    dead_.assign(g_.ops.size(), false);
    for (const Param& p : g_.params) {
      if (p.kind == ParamKind::Weight) weights_[p.value] = &p;
    }
  }

  void run() {
    for (size_t i = 0; i < g_.ops.size(); ++i) {
      if (dead_[i]) continue;
      GraphOp& op = g_.ops[i];
      if (!folds_into_fused_op(op)) continue;
      switch (op.kind) {
        case K::Convolution:
          if (!conv2d(op) && !conv2d_backward_weight(op)) conv2d_backward_input(op);
          break;
        case K::DotGeneral: linear_or_matmul(op); break;
        case K::Add: bias(op); break;
        case K::ReduceWindow: max_pool(op); break;
        case K::Div:
          if (!softmax(op) && !reduce_mean(op)) avg_pool(op);
          break;
        case K::Mul: silu(op); break;
        case K::Reshape:
          if (!global_avg_pool(op)) keepdim(op);
          break;
        case K::Select: relu(op); break;
        case K::Cast: greater(op); break;
        case K::SelectAndScatter: max_pool_backward(op); break;
        case K::Pad: slice_backward(op); break;
        case K::Transpose: transpose_pair(i); break;
        default: break;
      }
      if (is_broadcasting_binary(g_.ops[i].kind)) implicit_broadcast(g_.ops[i]);
      if (g_.ops[i].kind == K::Matmul) matmul_batch_broadcast(g_.ops[i]);
    }
    // Sums no pattern above took (they look for the reduce itself), then their keepdim reshapes.
    for (size_t i = 0; i < g_.ops.size(); ++i) {
      if (!dead_[i] && g_.ops[i].kind == K::Reduce && folds_into_fused_op(g_.ops[i])) reduce_sum(g_.ops[i]);
    }
    for (size_t i = 0; i < g_.ops.size(); ++i) {
      if (!dead_[i] && g_.ops[i].kind == K::Reshape) keepdim(g_.ops[i]);
    }
    std::vector<GraphOp> kept;
    for (size_t i = 0; i < g_.ops.size(); ++i) {
      if (!dead_[i]) kept.push_back(std::move(g_.ops[i]));
    }
    g_.ops = std::move(kept);
  }

 private:
  const GraphOp* producer(ValueId v) const {
    const int p = producer_[static_cast<size_t>(v)];
    return p < 0 || dead_[static_cast<size_t>(p)] ? nullptr : &g_.ops[static_cast<size_t>(p)];
  }
  const GraphOp* producer_of_kind(ValueId v, K kind) const {
    const GraphOp* p = producer(v);
    return p != nullptr && p->kind == kind ? p : nullptr;
  }
  const TensorType& type(ValueId v) const { return g_.type(v); }
  size_t rank(ValueId v) const { return type(v).shape.size(); }

  // The one value every element of `v` holds when it is a constant splat.
  std::optional<double> splat(ValueId v) const {
    if (const GraphOp* c = producer_of_kind(v, K::Constant)) return c->attrs.get_float("value");
    if (const GraphOp* b = producer_of_kind(v, K::BroadcastInDim)) return splat(b->inputs[0]);
    if (const auto w = weights_.find(v); w != weights_.end()) {  // a known value made a weight (e.g. -inf)
      const Tensor& t = w->second->data;
      if (t.numel() == 0 || !is_floating(t.dtype())) return std::nullopt;
      const std::vector<float> data = t.to_f32_vector();
      for (float x : data) {
        if (std::memcmp(&x, &data[0], sizeof(float)) != 0) return std::nullopt;
      }
      return data[0];
    }
    return std::nullopt;
  }

  // Replaces `op` by a new op on `inputs` (its result value is kept), and
  // drops the ops only the old one used.
  void replace(GraphOp& op, K kind, std::vector<ValueId> inputs, Attrs attrs) {
    std::vector<ValueId> old = std::move(op.inputs);
    for (ValueId v : inputs) ++uses_[static_cast<size_t>(v)];
    op.kind = kind;
    op.inputs = std::move(inputs);
    op.attrs = std::move(attrs);
    for (ValueId v : old) release(v);
  }
  // Forwards every use of `from` to `to` (a value the ops before use).
  void forward(size_t op_index, ValueId to) {
    const ValueId from = g_.ops[op_index].output;
    for (size_t i = op_index + 1; i < g_.ops.size(); ++i) {
      for (ValueId& v : g_.ops[i].inputs) {
        if (v == from) {
          v = to;
          ++uses_[static_cast<size_t>(to)];
        }
      }
    }
    for (GraphOutput& o : g_.outputs) {
      if (o.value == from) {
        o.value = to;
        ++uses_[static_cast<size_t>(to)];
      }
    }
    uses_[static_cast<size_t>(from)] = 0;
    kill(static_cast<int>(op_index));
  }
  void release(ValueId v) {
    if (--uses_[static_cast<size_t>(v)] == 0) kill(producer_[static_cast<size_t>(v)]);
  }
  void kill(int op_index) {
    if (op_index < 0 || dead_[static_cast<size_t>(op_index)]) return;
    dead_[static_cast<size_t>(op_index)] = true;
    for (ValueId v : g_.ops[static_cast<size_t>(op_index)].inputs) release(v);
  }

  // meshtest's fused ops compute f32 (bf16 held as f32) on non-empty
  // tensors: a program in f64, f16 or integers, or one that makes an empty
  // tensor, keeps its StableHLO ops (whose kernels take every dtype).
  bool folds_into_fused_op(const GraphOp& op) const {
    const TensorType& out = type(op.output);
    return (out.dtype == DType::F32 || out.dtype == DType::BF16) && shape_numel(out.shape) > 0;
  }

  bool same_dtypes(const GraphOp& op) const {
    for (ValueId v : op.inputs) {
      if (type(v).dtype != type(op.output).dtype) return false;
    }
    return true;
  }

  // A rank-4 convolution with these dimension numbers (input batch, input
  // feature; kernel input, kernel output; output batch, output feature),
  // spatial dims 2 and 3 everywhere, no window reversal.
  bool conv_layout(const GraphOp& op, int64_t ib, int64_t ifeat, int64_t ki, int64_t ko, int64_t ob, int64_t of) const {
    const Attrs& a = op.attrs;
    const Ints spatial{2, 3};
    return rank(op.inputs[0]) == 4 && same_dtypes(op) && a.get_int("input_batch_dimension") == ib &&
           a.get_int("input_feature_dimension") == ifeat && a.get_ints("input_spatial_dimensions") == spatial &&
           a.get_int("kernel_input_feature_dimension") == ki && a.get_int("kernel_output_feature_dimension") == ko &&
           a.get_ints("kernel_spatial_dimensions") == spatial && a.get_int("output_batch_dimension") == ob &&
           a.get_int("output_feature_dimension") == of && a.get_ints("output_spatial_dimensions") == spatial &&
           a.get_ints("window_reversal") == Ints{0, 0};
  }

  bool conv2d(GraphOp& op) {
    const Attrs& a = op.attrs;
    if (!conv_layout(op, 0, 1, 1, 0, 0, 1)) return false;
    const Ints pad = a.get_ints("padding");
    if (a.get_ints("lhs_dilation") != Ints{1, 1} || a.get_int("batch_group_count") != 1 || pad.size() != 4 ||
        pad[0] != pad[1] || pad[2] != pad[3]) {
      return false;
    }
    replace(op, K::Conv2d, op.inputs,
            {{"stride", a.get_ints("window_strides")},
             {"padding", Ints{pad[0], pad[2]}},
             {"dilation", a.get_ints("rhs_dilation")},
             {"groups", a.get_int("feature_group_count")}});
    return true;
  }

  // dw of conv2d: x [f, b, 0, 1] with dy as the kernel [i, o, 0, 1], the
  // stride as rhs dilation, the dilation as window stride, the groups as
  // batch groups, and the high padding that makes exactly the weight's extent.
  bool conv2d_backward_weight(GraphOp& op) {
    const Attrs& a = op.attrs;
    if (!conv_layout(op, 1, 0, 0, 1, 1, 0)) return false;
    const Ints pad = a.get_ints("padding");
    const Ints stride = a.get_ints("rhs_dilation");
    const Ints dilation = a.get_ints("window_strides");
    const Shape& x = type(op.inputs[0]).shape;
    const Shape& dy = type(op.inputs[1]).shape;
    const Shape& dw = type(op.output).shape;
    if (a.get_ints("lhs_dilation") != Ints{1, 1} || a.get_int("feature_group_count") != 1 || pad.size() != 4) return false;
    for (size_t i = 0; i < 2; ++i) {
      const int64_t high = (dw[2 + i] - 1) * dilation[i] + (dy[2 + i] - 1) * stride[i] + 1 - x[2 + i] - pad[2 * i];
      if (pad[2 * i] < 0 || pad[2 * i + 1] != high) return false;
    }
    replace(op, K::Conv2dBackwardWeight, op.inputs,
            {{"stride", stride},
             {"padding", Ints{pad[0], pad[2]}},
             {"dilation", dilation},
             {"groups", a.get_int("batch_group_count")},
             {"weight_shape", Ints(dw.begin(), dw.end())}});
    return true;
  }

  // The conv2d weight a transposed convolution's kernel was made from: the
  // kernel spatially reversed and, grouped, its [g*Og, Cg] rows regrouped to
  // [Og, g*Cg] (reshape, swap, reshape). kNoValue when it is not that.
  ValueId transposed_kernel_source(ValueId kernel, int64_t groups) const {
    const GraphOp* rev = producer_of_kind(kernel, K::Reverse);
    if (rev == nullptr || rev->attrs.get_ints("dimensions") != Ints{2, 3}) return kNoValue;
    if (groups == 1) return rev->inputs[0];
    const GraphOp* back = producer_of_kind(rev->inputs[0], K::Reshape);
    const GraphOp* swap = back != nullptr ? producer_of_kind(back->inputs[0], K::Transpose) : nullptr;
    const GraphOp* split = swap != nullptr ? producer_of_kind(swap->inputs[0], K::Reshape) : nullptr;
    if (split == nullptr || swap->attrs.get_ints("perm") != Ints{1, 0, 2, 3, 4}) return kNoValue;
    const Shape& w = type(split->inputs[0]).shape;
    if (w.size() != 4 || w[0] % groups != 0 || type(split->output).shape != Shape{groups, w[0] / groups, w[1], w[2], w[3]}) {
      return kNoValue;
    }
    return split->inputs[0];
  }

  // dx of conv2d: dy dilated by the stride, padded by d*(K-1)-p below and
  // H-(OH-1)*s-1+p above, convolved with the transposed kernel.
  bool conv2d_backward_input(GraphOp& op) {
    const Attrs& a = op.attrs;
    if (!conv_layout(op, 0, 1, 0, 1, 0, 1) || a.get_int("batch_group_count") != 1) return false;
    const int64_t groups = a.get_int("feature_group_count");
    const ValueId w = transposed_kernel_source(op.inputs[1], groups);
    if (w == kNoValue || a.get_ints("window_strides") != Ints{1, 1}) return false;
    const Ints pad = a.get_ints("padding");
    const Ints stride = a.get_ints("lhs_dilation");
    const Ints dilation = a.get_ints("rhs_dilation");
    const Shape& dy = type(op.inputs[0]).shape;
    const Shape& ws = type(w).shape;
    const Shape& dx = type(op.output).shape;
    Ints padding;
    for (size_t i = 0; i < 2; ++i) {
      const int64_t p = dilation[i] * (ws[2 + i] - 1) - pad[2 * i];
      if (p < 0 || pad[2 * i + 1] != dx[2 + i] - (dy[2 + i] - 1) * stride[i] - 1 + p) return false;
      padding.push_back(p);
    }
    replace(op, K::Conv2dBackwardInput, {op.inputs[0], w},
            {{"stride", stride},
             {"padding", padding},
             {"dilation", dilation},
             {"groups", groups},
             {"input_shape", Ints(dx.begin(), dx.end())}});
    return true;
  }

  void linear_or_matmul(GraphOp& op) {
    const Attrs& a = op.attrs;
    if (!same_dtypes(op)) return;
    const auto r = static_cast<int64_t>(rank(op.inputs[0]));
    const Ints& lb = a.get_ints("lhs_batching_dims");
    const Ints& rb = a.get_ints("rhs_batching_dims");
    const Ints& lc = a.get_ints("lhs_contracting_dims");
    const Ints& rc = a.get_ints("rhs_contracting_dims");
    if (rank(op.inputs[1]) == 2 && lb.empty() && rb.empty() && lc == Ints{r - 1} && rc == Ints{1}) {
      replace(op, K::Linear, op.inputs, {});
      return;
    }
    Ints batch;
    for (int64_t d = 0; d + 2 < r; ++d) batch.push_back(d);
    if (r >= 2 && static_cast<int64_t>(rank(op.inputs[1])) == r && lb == batch && rb == batch && lc == Ints{r - 1} &&
        rc == Ints{r - 2}) {
      replace(op, K::Matmul, op.inputs, {});
    }
  }

  // y + broadcast(b) (either order) where y is a bias-less conv2d / linear used once.
  void bias(GraphOp& op) {
    for (size_t side = 0; side < 2; ++side) {
      const ValueId y = op.inputs[side];
      const GraphOp* b = producer_of_kind(op.inputs[1 - side], K::BroadcastInDim);
      const GraphOp* fused = producer(y);
      if (b == nullptr || fused == nullptr || fused->inputs.size() != 2 || uses_[static_cast<size_t>(y)] != 1) continue;
      const ValueId vec = b->inputs[0];
      if (rank(vec) != 1 || type(vec).dtype != type(y).dtype) continue;
      const Ints dims = b->attrs.get_ints("broadcast_dimensions");
      const bool along = (fused->kind == K::Conv2d && dims == Ints{1}) ||
                         (fused->kind == K::Linear && dims == Ints{static_cast<int64_t>(rank(y)) - 1});
      if (!along) continue;
      std::vector<ValueId> inputs = fused->inputs;
      inputs.push_back(vec);
      replace(op, fused->kind, inputs, fused->attrs);
      return;
    }
  }

  // The pool geometry of a rank-4 NCHW reduce_window, or nullopt.
  std::optional<Attrs> pool_window(const GraphOp& op) const {
    const Attrs& a = op.attrs;
    if (rank(op.inputs[0]) != 4) return std::nullopt;
    const Ints window = a.get_ints("window_dimensions");
    const Ints strides = a.get_ints("window_strides", {1, 1, 1, 1});
    const Ints pad = a.get_ints("padding", Ints(8, 0));
    const Ints ones{1, 1, 1, 1};
    if (window.size() != 4 || window[0] != 1 || window[1] != 1 || strides.size() != 4 || strides[0] != 1 ||
        strides[1] != 1 || a.get_ints("base_dilations", ones) != ones || a.get_ints("window_dilations", ones) != ones ||
        pad.size() != 8 || pad[0] != 0 || pad[1] != 0 || pad[2] != 0 || pad[3] != 0 || pad[4] != pad[5] ||
        pad[6] != pad[7]) {
      return std::nullopt;
    }
    return Attrs{{"kernel", Ints{window[2], window[3]}},
                 {"stride", Ints{strides[2], strides[3]}},
                 {"padding", Ints{pad[4], pad[6]}}};
  }

  void max_pool(GraphOp& op) {
    const std::optional<double> init = splat(op.inputs[1]);
    if (op.attrs.get_string("combiner") != "max" || !init || *init != -INFINITY) return;
    if (std::optional<Attrs> window = pool_window(op)) replace(op, K::MaxPool2d, {op.inputs[0]}, *window);
  }

  // reduce_window add / splat(kh * kw), the sums used only here.
  void avg_pool(GraphOp& op) {
    const GraphOp* sums = producer_of_kind(op.inputs[0], K::ReduceWindow);
    const std::optional<double> divisor = splat(op.inputs[1]);
    if (sums == nullptr || !divisor || uses_[static_cast<size_t>(op.inputs[0])] != 1) return;
    const std::optional<double> init = splat(sums->inputs[1]);
    const std::optional<Attrs> window = pool_window(*sums);
    if (sums->attrs.get_string("combiner") != "add" || !init || *init != 0.0 || std::signbit(*init) || !window) return;
    const Ints kernel = window->get_ints("kernel");
    if (*divisor != static_cast<double>(kernel[0] * kernel[1])) return;
    Attrs attrs = *window;
    attrs.set("count_include_pad", int64_t{1});
    replace(op, K::AvgPool2d, {sums->inputs[0]}, attrs);
  }

  // reshape of reduce_mean / reduce_sum (keepdim 0, used once) putting back
  // the reduced dims as 1s -> that reduction keepdim 1, as the writer spells keepdim.
  bool keepdim(GraphOp& op) {
    const GraphOp* mean = producer(op.inputs[0]);
    if (mean == nullptr || (mean->kind != K::ReduceMean && mean->kind != K::ReduceSum) ||
        mean->attrs.get_int("keepdim", 0) != 0 || uses_[static_cast<size_t>(op.inputs[0])] != 1) {
      return false;
    }
    Shape kept = type(mean->inputs[0]).shape;
    const Ints axes = mean->attrs.get_ints("axes");
    for (int64_t a : axes) kept[static_cast<size_t>(a)] = 1;
    if (kept != type(op.output).shape) return false;
    replace(op, mean->kind, {mean->inputs[0]}, {{"axes", axes}, {"keepdim", int64_t{1}}});
    return true;
  }

  // reshape to [N, C, 1, 1] of reduce_mean over {2, 3} (matched first, from its division).
  bool global_avg_pool(GraphOp& op) {
    const Shape& out = type(op.output).shape;
    const GraphOp* mean = producer_of_kind(op.inputs[0], K::ReduceMean);
    if (out.size() != 4 || out[2] != 1 || out[3] != 1 || mean == nullptr ||
        uses_[static_cast<size_t>(op.inputs[0])] != 1 || rank(mean->inputs[0]) != 4 ||
        mean->attrs.get_ints("axes") != Ints{2, 3}) {
      return false;
    }
    replace(op, K::GlobalAvgPool2d, {mean->inputs[0]}, {});
    return true;
  }

  // The reduce `combiner` from init `init` over one value, or null.
  const GraphOp* reduce_of(ValueId v, const char* combiner, double init) const {
    const GraphOp* r = producer_of_kind(v, K::Reduce);
    if (r == nullptr || r->attrs.get_string("combiner") != combiner) return nullptr;
    const std::optional<double> i = splat(r->inputs[1]);
    return i && *i == init && std::signbit(*i) == std::signbit(init) ? r : nullptr;
  }
  // broadcast_in_dim(reduce `combiner` of x over {axis}) back to x's shape.
  bool reduced_back(ValueId v, ValueId x, int64_t axis, const char* combiner, double init) const {
    const GraphOp* b = producer_of_kind(v, K::BroadcastInDim);
    if (b == nullptr || type(v).shape != type(x).shape) return false;
    const GraphOp* r = reduce_of(b->inputs[0], combiner, init);
    Ints others;
    for (int64_t d = 0; d < static_cast<int64_t>(rank(x)); ++d) {
      if (d != axis) others.push_back(d);
    }
    return r != nullptr && r->inputs[0] == x && r->attrs.get_ints("dimensions") == Ints{axis} &&
           b->attrs.get_ints("broadcast_dimensions") == others;
  }

  // e / broadcast(sum(e)) with e = exp(x - broadcast(max(x))), one axis.
  bool softmax(GraphOp& op) {
    const ValueId e = op.inputs[0];
    const GraphOp* exp = producer_of_kind(e, K::Exp);
    const GraphOp* sub = exp != nullptr ? producer_of_kind(exp->inputs[0], K::Sub) : nullptr;
    const GraphOp* sum_back = producer_of_kind(op.inputs[1], K::BroadcastInDim);
    const GraphOp* sum = sum_back != nullptr ? reduce_of(sum_back->inputs[0], "add", 0.0) : nullptr;
    if (sub == nullptr || sum == nullptr || !is_floating(type(e).dtype)) return false;
    const Ints dims = sum->attrs.get_ints("dimensions");
    if (dims.size() != 1 || uses_[static_cast<size_t>(e)] != 2 || uses_[static_cast<size_t>(exp->inputs[0])] != 1) {
      return false;
    }
    const ValueId x = sub->inputs[0];
    if (!reduced_back(op.inputs[1], e, dims[0], "add", 0.0) || !reduced_back(sub->inputs[1], x, dims[0], "max", -INFINITY)) {
      return false;
    }
    replace(op, K::Softmax, {x}, {{"axis", dims[0]}});
    return true;
  }

  // reduce add (init 0) / splat(count of the reduced elements), used once.
  bool reduce_mean(GraphOp& op) {
    const GraphOp* sum = reduce_of(op.inputs[0], "add", 0.0);
    const std::optional<double> divisor = splat(op.inputs[1]);
    if (sum == nullptr || !divisor || uses_[static_cast<size_t>(op.inputs[0])] != 1 ||
        !is_floating(type(op.output).dtype)) {
      return false;
    }
    const Ints axes = sum->attrs.get_ints("dimensions");
    int64_t count = 1;
    for (int64_t a : axes) count *= type(sum->inputs[0]).shape[static_cast<size_t>(a)];
    if (*divisor != static_cast<double>(count)) return false;
    replace(op, K::ReduceMean, {sum->inputs[0]}, {{"axes", axes}, {"keepdim", int64_t{0}}});
    return true;
  }

  // x * logistic(x), either order.
  void silu(GraphOp& op) {
    for (size_t side = 0; side < 2; ++side) {
      const GraphOp* sigmoid = producer_of_kind(op.inputs[1 - side], K::Sigmoid);
      if (sigmoid != nullptr && sigmoid->inputs[0] == op.inputs[side] && uses_[static_cast<size_t>(op.inputs[1 - side])] == 1) {
        replace(op, K::Silu, {op.inputs[side]}, {});
        return;
      }
    }
  }

  static bool is_broadcasting_binary(K kind) {
    return kind == K::Add || kind == K::Sub || kind == K::Mul || kind == K::Div || kind == K::Maximum ||
           kind == K::Minimum || kind == K::Power;
  }

  // An operand broadcast_in_dim'ed the way the op broadcasts by itself
  // (numpy: trailing dims aligned, each 1 or equal), the other operand of the
  // result's shape: the op takes the broadcast's input.
  void implicit_broadcast(GraphOp& op) {
    const Shape& out = type(op.output).shape;
    for (size_t side = 0; side < 2; ++side) {
      if (type(op.inputs[1 - side]).shape != out) continue;
      const std::optional<ValueId> narrow = numpy_broadcast_source(op.inputs[side], out);
      if (!narrow) continue;
      std::vector<ValueId> inputs = op.inputs;
      inputs[side] = *narrow;
      replace(op, op.kind, inputs, op.attrs);
    }
  }

  // The input of a broadcast_in_dim making `v` of shape `out` the way numpy
  // broadcasting would (trailing dims aligned, each 1 or equal).
  std::optional<ValueId> numpy_broadcast_source(ValueId v, const Shape& out) const {
    const GraphOp* b = producer_of_kind(v, K::BroadcastInDim);
    if (b == nullptr || type(v).shape != out) return std::nullopt;
    const Shape& in = type(b->inputs[0]).shape;
    const Ints dims = b->attrs.get_ints("broadcast_dimensions");
    if (in.size() > out.size() || dims.size() != in.size()) return std::nullopt;
    const size_t lead = out.size() - in.size();
    for (size_t d = 0; d < in.size(); ++d) {
      if (dims[d] != static_cast<int64_t>(lead + d) || (in[d] != 1 && in[d] != out[lead + d])) return std::nullopt;
    }
    return b->inputs[0];
  }

  // A matmul operand broadcast_in_dim'ed along batch dims only (same rank,
  // identity dims, the last two dims kept), where matmul's own batch
  // broadcasting gives the same result shape: the matmul takes the input.
  void matmul_batch_broadcast(GraphOp& op) {
    const Shape& out = type(op.output).shape;
    for (size_t side = 0; side < 2; ++side) {
      const GraphOp* b = producer_of_kind(op.inputs[side], K::BroadcastInDim);
      if (b == nullptr) continue;
      const Shape& in = type(b->inputs[0]).shape;
      const Shape& wide = type(op.inputs[side]).shape;
      const Shape& other = type(op.inputs[1 - side]).shape;
      const size_t r = wide.size();
      Ints identity;
      for (size_t d = 0; d < r; ++d) identity.push_back(static_cast<int64_t>(d));
      bool batch_only = in.size() == r && other.size() == r && b->attrs.get_ints("broadcast_dimensions") == identity &&
                        in[r - 1] == wide[r - 1] && in[r - 2] == wide[r - 2];
      for (size_t d = 0; batch_only && d + 2 < r; ++d) {
        batch_only = in[d] == out[d] || (in[d] == 1 && other[d] == out[d]);
      }
      if (!batch_only) continue;
      std::vector<ValueId> inputs = op.inputs;
      inputs[side] = b->inputs[0];
      replace(op, K::Matmul, inputs, {});
    }
  }

  // Every window's first maximum (select GE) accumulates its dy (scatter
  // add from +0): max_pool2d_backward over the same window.
  void max_pool_backward(GraphOp& op) {
    const std::optional<double> init = splat(op.inputs[2]);
    if (op.attrs.get_string("select") != "ge" || op.attrs.get_string("combiner", "add") != "add" || !init ||
        *init != 0.0 || std::signbit(*init)) {
      return;
    }
    Attrs window_attrs = op.attrs;  // the window as a reduce_window spells it
    window_attrs.set("base_dilations", Ints{1, 1, 1, 1});
    window_attrs.set("window_dilations", Ints{1, 1, 1, 1});
    const GraphOp probe{K::ReduceWindow, {op.inputs[0]}, op.output, window_attrs};
    if (std::optional<Attrs> window = pool_window(probe)) replace(op, K::MaxPool2dBackward, {op.inputs[0], op.inputs[1]}, *window);
  }

  // convert(compare GT (a, b)) to a float dtype: greater's 1 / 0 (operands
  // broadcast as greater broadcasts them).
  void greater(GraphOp& op) {
    const GraphOp* gt = producer_of_kind(op.inputs[0], K::Compare);
    if (gt == nullptr || gt->attrs.get_string("direction") != "GT" || !is_floating(type(op.output).dtype) ||
        gt->attrs.get_string("compare_type", "NOTYPE") == "TOTALORDER" || !is_floating(type(gt->inputs[0]).dtype) ||
        type(gt->inputs[0]).dtype != type(op.output).dtype) {
      return;
    }
    std::vector<ValueId> inputs = gt->inputs;
    const Shape& out = type(op.output).shape;
    for (size_t side = 0; side < 2; ++side) {
      if (type(inputs[1 - side]).shape != out) continue;
      if (std::optional<ValueId> narrow = numpy_broadcast_source(inputs[side], out)) inputs[side] = *narrow;
    }
    replace(op, K::Greater, inputs, {});
  }

  // pad of dy with +0 along one axis only (low, interior, high >= 0): the
  // zeros of slice_backward with dy where slice{start = low, step =
  // interior + 1} read.
  void slice_backward(GraphOp& op) {
    const std::optional<double> zero = splat(op.inputs[1]);
    if (!zero || *zero != 0.0 || std::signbit(*zero)) return;
    const Ints low = op.attrs.get_ints("low");
    const Ints high = op.attrs.get_ints("high");
    const Ints interior = op.attrs.get_ints("interior", Ints(low.size(), 0));
    int64_t axis = -1;
    for (size_t d = 0; d < low.size(); ++d) {
      if (low[d] < 0 || high[d] < 0 || interior[d] < 0) return;
      if (low[d] == 0 && high[d] == 0 && interior[d] == 0) continue;
      if (axis >= 0) return;
      axis = static_cast<int64_t>(d);
    }
    const Shape& dy = type(op.inputs[0]).shape;
    if (axis < 0 || dy[static_cast<size_t>(axis)] == 0) return;
    const auto a = static_cast<size_t>(axis);
    const int64_t step = interior[a] + 1;
    const Shape& in = type(op.output).shape;
    replace(op, K::SliceBackward, {op.inputs[0]},
            {{"axis", axis},
             {"start", low[a]},
             {"end", low[a] + (dy[a] - 1) * step + 1},
             {"step", step},
             {"input_shape", Ints(in.begin(), in.end())}});
  }

  // reduce add from +0 -> reduce_sum (keepdim 0).
  void reduce_sum(GraphOp& op) {
    const std::optional<double> init = splat(op.inputs[1]);
    if (op.attrs.get_string("combiner") != "add" || !init || *init != 0.0 || std::signbit(*init) ||
        !is_floating(type(op.output).dtype)) {
      return;
    }
    replace(op, K::ReduceSum, {op.inputs[0]}, {{"axes", op.attrs.get_ints("dimensions")}, {"keepdim", int64_t{0}}});
  }

  // select(compare LT (x, 0), 0, x): relu's own definition.
  void relu(GraphOp& op) {
    const GraphOp* lt = producer_of_kind(op.inputs[0], K::Compare);
    const ValueId x = op.inputs[2];
    const std::optional<double> zero = splat(op.inputs[1]);
    if (lt == nullptr || !zero || *zero != 0.0 || lt->attrs.get_string("direction") != "LT" || lt->inputs[0] != x ||
        lt->attrs.get_string("compare_type", "NOTYPE") == "TOTALORDER") {
      return;  // a total order puts -0 below +0: not relu
    }
    const std::optional<double> threshold = splat(lt->inputs[1]);
    if (!threshold || *threshold != 0.0 || !is_floating(type(x).dtype)) return;
    replace(op, K::Relu, {x}, {});
  }

  void transpose_pair(size_t i) {
    const GraphOp& op = g_.ops[i];
    const GraphOp* first = producer_of_kind(op.inputs[0], K::Transpose);
    if (first == nullptr) return;
    const Ints& outer = op.attrs.get_ints("perm");
    const Ints& inner = first->attrs.get_ints("perm");
    for (size_t d = 0; d < outer.size(); ++d) {
      if (inner[static_cast<size_t>(outer[d])] != static_cast<int64_t>(d)) return;
    }
    forward(i, first->inputs[0]);
  }

  Graph& g_;
  std::vector<int> producer_;
  std::vector<int> uses_;
  std::vector<bool> dead_;
  std::map<ValueId, const Param*> weights_;
};

}  // namespace

void recognize_fused_ops(Graph& graph) { PatternRewriter(graph).run(); }

}  // namespace meshtest::frontends::stablehlo
