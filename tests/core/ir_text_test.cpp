// Unit tests of the IR text format: print -> parse -> print round trips (every
// op, every attribute kind, quoted names, every initializer), exact floats,
// error positions, and garbage input that must only ever raise ParseError.
#include "core/ir_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include "core/error.h"
#include "core/graph_builder.h"

namespace meshtest {
namespace {

using testing::HasSubstr;
using Ints = std::vector<int64_t>;

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor weight_data() {
  std::vector<float> v(100 * 8);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) * 0.5f;
  return Tensor::from_f32({100, 8}, v);
}

// A graph that uses every op of the IR, every attribute kind, names that need
// quotes and every kind of weight (normal, uniform, constant, data).
Graph every_op_graph() {
  GraphBuilder b("every op \"graph\"");
  const ValueId x = b.input("x", DType::F32, {2, 4, 8, 8});
  const ValueId ids = b.input("token ids", DType::I64, {2, 5});
  const ValueId conv_w =
      b.weight("conv.w\"eight\\", {4, 2, 3, 3}, Initializer::normal(-0.0, 0.0357, 18446744073709551615ull));
  const ValueId conv_b = b.weight("conv/b:0", {4}, Initializer::uniform(-1e-300, 1e300, 0));
  const ValueId bn = b.weight("bn.scale", {4}, Initializer::constant(1.0));
  const ValueId bn_var = b.weight("bn.var", {4}, Initializer::constant(0.1));
  const ValueId ln_g = b.weight("ln{g}", {8}, Initializer::constant(-2.5e-8));
  const ValueId ln_b = b.weight("ln b\n\t\x01\xc3\xbc", {8}, Initializer::uniform(0.1, 0.30000000000000004, 42));
  const ValueId emb = b.weight("emb", weight_data());
  const ValueId fc_w = b.weight("fc.w", {6, 8}, Initializer::normal(1e-310, 1.0 / 3.0, 7), DType::BF16);
  const ValueId fc_b = b.weight("fc.b", {6}, Initializer::constant(5e-324), DType::BF16);
  const ValueId mm_w = b.weight("-", {8, 6}, Initializer::normal(0, 1, 1), DType::BFP8_B);

  // Unary chain.
  ValueId u = x;
  for (OpKind k : all_ops()) {
    if (!is_unary_elementwise(k)) continue;
    Attrs attrs;
    if (k == OpKind::Gelu) attrs.set("approximate", std::string("tanh"));
    u = b.op(k, {u}, attrs);
  }
  // Binary ops with broadcasting against a constant.
  const ValueId c = b.op(OpKind::Constant, {}, {{"value", 0.1}, {"dtype", std::string("f32")}, {"shape", Ints{8}}});
  ValueId v = u;
  for (OpKind k : all_ops()) {
    if (is_binary_elementwise(k)) v = b.op(k, {v, c});
  }
  const ValueId conv =
      b.op(OpKind::Conv2d, {v, conv_w, conv_b},
           {{"stride", Ints{1, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 1}}, {"groups", int64_t{2}}});
  const ValueId mp =
      b.op(OpKind::MaxPool2d, {conv}, {{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}, {"padding", Ints{0, 0}}});
  const ValueId ap = b.op(
      OpKind::AvgPool2d, {mp},
      {{"kernel", Ints{3, 3}}, {"stride", Ints{1, 1}}, {"padding", Ints{1, 1}}, {"count_include_pad", int64_t{0}}});
  const ValueId gp = b.op(OpKind::GlobalAvgPool2d, {ap});
  const ValueId bnorm = b.op(OpKind::BatchNorm, {conv, bn, conv_b, conv_b, bn_var}, {{"eps", 1e-5}});
  // Attributes of every kind, including floats that are hard to round-trip
  // (discardable "test.*" ones, which no op schema checks).
  Attrs ln_attrs = {{"eps", 1e-5},
                    {"test.weird key \"with\" quotes", std::string("tab\tquote\"backslash\\ newline\n \x01 \xc3\xbc")},
                    {"test.min_int", std::numeric_limits<int64_t>::min()},
                    {"test.max_int", std::numeric_limits<int64_t>::max()},
                    {"test.pinf", kInf},
                    {"test.ninf", -kInf},
                    {"test.nan", std::numeric_limits<double>::quiet_NaN()},
                    {"test.neg_zero", -0.0},
                    {"test.denormal", 5e-324},
                    {"test.largest", std::numeric_limits<double>::max()},
                    {"test.third", 1.0 / 3.0},
                    {"test.whole", 3.0},
                    {"test.big_whole", 1e22},
                    {"test.empty_list", Ints{}},
                    {"test.negative_list", Ints{-1, 0, std::numeric_limits<int64_t>::min()}},
                    {"test.empty_string", std::string()}};
  const ValueId ln = b.op(OpKind::LayerNorm, {bnorm, ln_g, ln_b}, ln_attrs);
  const ValueId sm = b.softmax(ln, -1);
  const ValueId e = b.op(OpKind::Embedding, {ids, emb});
  const ValueId mm = b.op(OpKind::Matmul, {b.op(OpKind::Cast, {e}, {{"dtype", std::string("bfp8_b")}}), mm_w});
  const ValueId lin = b.linear(b.op(OpKind::Cast, {e}, {{"dtype", std::string("bf16")}}), fc_w, fc_b);
  const ValueId rs = b.reshape(sm, {2, 4, -1});
  const ValueId tr = b.transpose(rs, {0, 2, 1});
  const ValueId cat = b.concat({tr, tr, b.transpose(rs, {0, 2, 1})}, 1);
  const ValueId sl = b.slice(cat, -1, -3, 100, 2);
  const ValueId rsum = b.op(OpKind::ReduceSum, {sl}, {{"axes", Ints{1}}, {"keepdim", int64_t{1}}});
  const ValueId rmean = b.op(OpKind::ReduceMean, {rsum}, {{"axes", Ints{-1, 0}}, {"keepdim", int64_t{0}}});
  const ValueId rmax = b.op(OpKind::ReduceMax, {gp}, {{"axes", Ints{}}});
  b.output("probs", rmean);
  b.output("pooled max", rmax);
  b.output("mm", mm);
  b.output("lin", lin);
  // Composite ops (made by the compiler's fuse pass).
  b.output("rms", b.op(OpKind::RmsNorm, {ln, ln_g}, {{"eps", 1e-6}, {"form", std::string("cast_before_weight")}}));
  b.output("attn", b.op(OpKind::Sdpa, {rs, b.transpose(rs, {0, 2, 1}), rs}, {{"scale", 0.125}}));
  b.output("routing", b.op(OpKind::TopkMask, {sm}, {{"k", int64_t{1}}, {"axis", int64_t{-1}}}));
  // Backward ops (made by the compiler's autodiff).
  const Attrs conv_geometry{{"stride", Ints{1, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 1}}, {"groups", int64_t{2}}};
  Attrs dx_attrs = conv_geometry, dw_attrs = conv_geometry;
  dx_attrs.set("input_shape", b.shape(x));
  dw_attrs.set("weight_shape", b.shape(conv_w));
  b.output("greater", b.op(OpKind::Greater, {x, c}));
  b.output("conv dx", b.op(OpKind::Conv2dBackwardInput, {conv, conv_w}, dx_attrs));
  b.output("conv dw", b.op(OpKind::Conv2dBackwardWeight, {x, conv}, dw_attrs));
  b.output("max dx", b.op(OpKind::MaxPool2dBackward, {conv, mp},
                          {{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}, {"padding", Ints{0, 0}}}));
  b.output("avg dx", b.op(OpKind::AvgPool2dBackward, {ap},
                          {{"kernel", Ints{3, 3}}, {"stride", Ints{1, 1}}, {"padding", Ints{1, 1}},
                           {"count_include_pad", int64_t{0}}, {"input_shape", b.shape(mp)}}));
  b.output("emb grad", b.op(OpKind::EmbeddingBackward, {ids, e}, {{"num_embeddings", int64_t{100}}}));
  b.output("slice dx", b.op(OpKind::SliceBackward, {sl},
                            {{"axis", int64_t{-1}}, {"start", int64_t{-3}}, {"end", int64_t{100}}, {"step", int64_t{2}},
                             {"input_shape", b.shape(cat)}}));
  const auto group = [](const char* axes) { return Attrs{{"axes", std::string(axes)}, {"group_size", int64_t{2}}}; };
  Attrs gather = group("model");
  gather.set("dim", int64_t{1});
  b.output("gathered", b.op(OpKind::AllGather, {x}, gather));
  Attrs scatter = group("batch,model");
  scatter.set("dim", int64_t{-1});
  b.output("scattered", b.op(OpKind::ReduceScatter, {x}, scatter));
  b.output("reduced", b.op(OpKind::AllReduce, {x}, group("model")));
  Attrs a2a = group("model");
  a2a.set("split_dim", int64_t{0});
  a2a.set("concat_dim", int64_t{2});
  b.output("exchanged", b.op(OpKind::AllToAll, {x}, a2a));
  Attrs slice = group("model");
  slice.set("dim", int64_t{0});
  b.output("sliced", b.op(OpKind::ShardSlice, {x}, slice));
  const ValueId start = b.weight("vocab_start", Tensor::from_i64({1}, {16}));
  b.output("vocab_part", b.op(OpKind::EmbeddingShard, {ids, b.weight("table_part", {16, 4}, Initializer::constant(1.0)), start}));
  // StableHLO elementwise ops (53..95): float ones on x, integer ones on ids.
  {
    ValueId f = x;
    for (OpKind k : {OpKind::Abs, OpKind::Sign, OpKind::Floor, OpKind::Ceil, OpKind::RoundAfz, OpKind::RoundEven,
                     OpKind::Expm1, OpKind::Log1p, OpKind::Cbrt, OpKind::Tan, OpKind::Sinh, OpKind::Cosh, OpKind::Asin,
                     OpKind::Acos, OpKind::Atan, OpKind::Asinh, OpKind::Acosh, OpKind::Atanh, OpKind::Erfc,
                     OpKind::ErfInv, OpKind::Lgamma, OpKind::Digamma}) {
      f = b.op(k, {f});
    }
    for (OpKind k : {OpKind::Minimum, OpKind::Power, OpKind::Remainder, OpKind::Atan2, OpKind::NextAfter}) {
      f = b.op(k, {f, x});
    }
    f = b.op(OpKind::ReducePrecision, {f}, {{"exponent_bits", int64_t{5}}, {"mantissa_bits", int64_t{10}}});
    const ValueId finite = b.op(OpKind::IsFinite, {f});
    f = b.op(OpKind::Select, {finite, f, x});
    f = b.op(OpKind::Clamp, {c, f, c});
    b.output("stablehlo float", b.op(OpKind::BitcastConvert, {f}, {{"dtype", std::string("u16")},
                                                                    {"shape", Ints{2, 4, 8, 8, 2}}}));
    ValueId i = ids;
    for (OpKind k : {OpKind::Not, OpKind::Popcnt, OpKind::Clz}) i = b.op(k, {i});
    for (OpKind k : {OpKind::And, OpKind::Or, OpKind::Xor, OpKind::ShiftLeft, OpKind::ShiftRightArithmetic,
                     OpKind::ShiftRightLogical}) {
      i = b.op(k, {i, ids});
    }
    const ValueId iota = b.op(OpKind::Iota, {}, {{"dtype", std::string("i64")}, {"shape", Ints{2, 5}},
                                                 {"dimension", int64_t{1}}});
    b.output("stablehlo compare", b.op(OpKind::Compare, {i, iota}, {{"direction", std::string("LT")},
                                                                     {"compare_type", std::string("SIGNED")}}));
  }
  // StableHLO structural ops (96..110).
  const ValueId zero = b.op(OpKind::Constant, {}, {{"value", 0.0}, {"dtype", std::string("f32")}, {"shape", Ints{}}});
  const ValueId at = b.weight("start", Tensor::from_i64({}, {1}));
  b.output("broadcast", b.op(OpKind::BroadcastInDim, {c}, {{"shape", Ints{2, 8}}, {"broadcast_dimensions", Ints{1}}}));
  b.output("padded", b.op(OpKind::Pad, {x, zero},
                          {{"low", Ints{0, 0, 1, -1}}, {"high", Ints{0, 0, 1, 0}}, {"interior", Ints{0, 0, 1, 0}}}));
  b.output("reversed", b.op(OpKind::Reverse, {x}, {{"dimensions", Ints{3}}}));
  const ValueId window = b.op(OpKind::DynamicSlice, {x, at, at, at, at}, {{"slice_sizes", Ints{1, 2, 3, 4}}});
  b.output("updated", b.op(OpKind::DynamicUpdateSlice, {x, window, at, at, at, at}));
  const ValueId gathered = b.op(OpKind::Gather, {x, ids},
                                {{"offset_dims", Ints{2, 3, 4}}, {"collapsed_slice_dims", Ints{3}},
                                 {"start_index_map", Ints{3}}, {"index_vector_dim", int64_t{2}},
                                 {"slice_sizes", Ints{2, 4, 8, 1}}, {"indices_are_sorted", int64_t{1}}});
  b.output("scatter", b.op(OpKind::Scatter, {x, ids, gathered},
                           {{"update_window_dims", Ints{2, 3, 4}}, {"inserted_window_dims", Ints{3}},
                            {"scatter_dims_to_operand_dims", Ints{3}}, {"index_vector_dim", int64_t{2}},
                            {"combiner", std::string("add")}}));
  b.output("dot", b.op(OpKind::DotGeneral, {x, x},
                       {{"lhs_batching_dims", Ints{0, 1}}, {"rhs_batching_dims", Ints{0, 1}},
                        {"lhs_contracting_dims", Ints{3}}, {"rhs_contracting_dims", Ints{2}},
                        {"dtype", std::string("f32")}}));
  b.output("convolution", b.op(OpKind::Convolution, {x, conv_w},
                               {{"padding", Ints{1, 1, 1, 1}}, {"input_batch_dimension", int64_t{0}},
                                {"input_feature_dimension", int64_t{1}}, {"input_spatial_dimensions", Ints{2, 3}},
                                {"kernel_input_feature_dimension", int64_t{1}},
                                {"kernel_output_feature_dimension", int64_t{0}},
                                {"kernel_spatial_dimensions", Ints{2, 3}}, {"output_batch_dimension", int64_t{0}},
                                {"output_feature_dimension", int64_t{1}}, {"output_spatial_dimensions", Ints{2, 3}},
                                {"feature_group_count", int64_t{2}}, {"dtype", std::string("f32")}}));
  b.output("reduce", b.op(OpKind::Reduce, {x, zero}, {{"dimensions", Ints{1, 3}}, {"combiner", std::string("max")}}));
  b.output("argmin", b.op(OpKind::ReduceArg, {x},
                          {{"dimension", int64_t{1}}, {"direction", std::string("min")}, {"dtype", std::string("i32")}}));
  const Attrs pool{{"window_dimensions", Ints{1, 1, 2, 2}}, {"window_strides", Ints{1, 1, 2, 2}},
                   {"combiner", std::string("max")}};
  b.output("windows", b.op(OpKind::ReduceWindow, {x, zero},
                           {{"window_dimensions", Ints{1, 1, 2, 2}}, {"padding", Ints{0, 0, 0, 0, 1, 0, 0, 1}},
                            {"base_dilations", Ints{1, 1, 2, 1}}, {"combiner", std::string("add")}}));
  b.output("select scatter", b.op(OpKind::SelectAndScatter, {x, b.op(OpKind::ReduceWindow, {x, zero}, pool), zero},
                                  {{"window_dimensions", Ints{1, 1, 2, 2}}, {"window_strides", Ints{1, 1, 2, 2}},
                                   {"select", std::string("ge")}}));
  const ValueId order = b.op(OpKind::SortPermutation, {x, x},
                             {{"dimension", int64_t{-1}}, {"directions", Ints{0, 1}}, {"total_order", int64_t{1}},
                              {"is_stable", int64_t{1}}});
  b.output("sorted", b.op(OpKind::TakeAlongAxis, {x, order}, {{"axis", int64_t{-1}}}));
  b.output("passthrough", x);  // an output that is a parameter
  return b.finish();
}

bool same_attr(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  if (const double* da = std::get_if<double>(&a)) {
    const double db = std::get<double>(b);
    if (std::isnan(*da)) return std::isnan(db) && std::signbit(*da) == std::signbit(db);
    return std::memcmp(da, &db, sizeof db) == 0;  // bit exact: -0.0 and denormals too
  }
  return a == b;
}

TEST(IrTextTest, EveryOpRoundTrips) {
  const Graph g = every_op_graph();
  std::set<OpKind> used;
  for (const Op& op : g.ops) used.insert(op.kind);
  EXPECT_EQ(used.size(), all_ops().size()) << "the round-trip graph must use every op";

  const std::string text = print_graph(g);
  const Graph parsed = parse_graph(text, "every_op.mtir");
  EXPECT_EQ(print_graph(parsed), text);

  EXPECT_EQ(parsed.name, g.name);
  ASSERT_EQ(parsed.params.size(), g.params.size());
  for (size_t i = 0; i < g.params.size(); ++i) {
    SCOPED_TRACE(g.params[i].name);
    EXPECT_EQ(parsed.params[i].name, g.params[i].name);
    EXPECT_EQ(parsed.params[i].kind, g.params[i].kind);
    EXPECT_EQ(parsed.type(parsed.params[i].value), g.type(g.params[i].value));
    ASSERT_EQ(parsed.params[i].init.has_value(), g.params[i].init.has_value());
    if (g.params[i].init) {
      const Initializer& a = *g.params[i].init;
      const Initializer& b = *parsed.params[i].init;
      EXPECT_EQ(a.dist, b.dist);
      EXPECT_EQ(std::memcmp(&a.a, &b.a, sizeof(double)), 0);
      if (a.dist != Initializer::Dist::Constant) {
        EXPECT_EQ(std::memcmp(&a.b, &b.b, sizeof(double)), 0);
        EXPECT_EQ(a.seed, b.seed);
      }
    }
  }
  ASSERT_EQ(parsed.ops.size(), g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    EXPECT_EQ(parsed.ops[i].kind, g.ops[i].kind);
    EXPECT_EQ(parsed.type(parsed.ops[i].output), g.type(g.ops[i].output));
    ASSERT_EQ(parsed.ops[i].attrs.values().size(), g.ops[i].attrs.values().size());
    for (const auto& [key, value] : g.ops[i].attrs.values()) {
      ASSERT_TRUE(parsed.ops[i].attrs.has(key)) << key;
      EXPECT_TRUE(same_attr(parsed.ops[i].attrs.values().at(key), value)) << describe_op(g, i) << " " << key;
    }
  }
  ASSERT_EQ(parsed.outputs.size(), g.outputs.size());
  for (size_t i = 0; i < g.outputs.size(); ++i) EXPECT_EQ(parsed.outputs[i].name, g.outputs[i].name);

  // The weight that had data comes back as a `= data` weight without data.
  const Param* emb = parsed.find_param("emb");
  ASSERT_NE(emb, nullptr);
  EXPECT_FALSE(emb->init.has_value());
  EXPECT_FALSE(emb->data.defined());
  EXPECT_THROW(materialize(*emb, parsed.type(emb->value)), Error);
}

TEST(IrTextTest, PrintedFormIsReadable) {
  const Graph g = every_op_graph();
  const std::string text = print_graph(g);
  EXPECT_THAT(text, HasSubstr("graph @\"every op \\\"graph\\\"\" {\n"));
  EXPECT_THAT(text, HasSubstr("  input @x : f32[2,4,8,8]\n"));
  EXPECT_THAT(text, HasSubstr("  input @\"token ids\" : i64[2,5]\n"));
  EXPECT_THAT(text, HasSubstr("  weight @\"conv.w\\\"eight\\\\\" : f32[4,2,3,3] = "
                              "normal(mean=-0.0, std=0.0357, seed=18446744073709551615)\n"));
  EXPECT_THAT(text, HasSubstr("  weight @conv/b:0 : f32[4] = uniform(low=-1e-300, high=1e+300, seed=0)\n"));
  EXPECT_THAT(text, HasSubstr("  weight @bn.scale : f32[4] = constant(1.0)\n"));
  EXPECT_THAT(text, HasSubstr("  weight @\"ln b\\n\\t\\x01\\xc3\\xbc\" : f32[8] = "
                              "uniform(low=0.1, high=0.30000000000000004, seed=42)\n"));
  EXPECT_THAT(text, HasSubstr("  weight @emb : f32[100,8] = data\n"));
  EXPECT_THAT(text, HasSubstr("  weight @- : bfp8_b[8,6] = normal(mean=0.0, std=1.0, seed=1)\n"));
  EXPECT_THAT(text, HasSubstr("  %0 = relu(@x) : f32[2,4,8,8]\n"));
  EXPECT_THAT(text, HasSubstr("  %1 = gelu(%0) {approximate = \"tanh\"} : f32[2,4,8,8]\n"));
  EXPECT_THAT(text, HasSubstr(" = constant() {dtype = \"f32\", shape = [8], value = 0.1} : f32[8]\n"));
  EXPECT_THAT(text, HasSubstr("{dilation = [1, 1], groups = 2, padding = [1, 1], stride = [1, 1]}"));
  EXPECT_THAT(text, HasSubstr("{eps = 1e-05, \"test.big_whole\" = 1e+22, \"test.denormal\" = 5e-324, "
                              "\"test.empty_list\" = [], \"test.empty_string\" = \"\", "));
  EXPECT_THAT(text, HasSubstr("\"test.max_int\" = 9223372036854775807, \"test.min_int\" = -9223372036854775808, "
                              "\"test.nan\" = nan, \"test.neg_zero\" = -0.0, "
                              "\"test.negative_list\" = [-1, 0, -9223372036854775808], \"test.ninf\" = -inf, "
                              "\"test.pinf\" = inf, \"test.third\" = 0.3333333333333333, "
                              "\"test.weird key \\\"with\\\" quotes\" = \"tab\\tquote\\\"backslash\\\\ newline\\n "
                              "\\x01 \\xc3\\xbc\", \"test.whole\" = 3.0}"));
  EXPECT_THAT(text, HasSubstr("  output @\"pooled max\" = %"));
  EXPECT_THAT(text, HasSubstr("  output @passthrough = @x\n}\n"));
}

TEST(IrTextTest, ParsesTheHeaderExample) {
  const std::string text = R"(graph @mlp {
    input @x : f32[1,784]
    weight @fc1.weight : f32[512,784] = normal(mean=0, std=0.0357, seed=1234)
    weight @fc1.bias : f32[512] = constant(0)
    %0 = linear(@x, @fc1.weight, @fc1.bias) : f32[1,512]
    %1 = relu(%0) : f32[1,512]
    %2 = softmax(%1) {axis = -1} : f32[1,512]
    output @probs = %2
  })";
  const Graph g = parse_graph(text);
  EXPECT_EQ(g.name, "mlp");
  EXPECT_EQ(g.weight_count(), 512 * 784 + 512);
  ASSERT_TRUE(g.params[1].init.has_value());
  EXPECT_EQ(*g.params[1].init, Initializer::normal(0, 0.0357, 1234));
  EXPECT_EQ(g.ops[2].attrs.get_int("axis"), -1);
  EXPECT_EQ(print_graph(g), R"(graph @mlp {
  input @x : f32[1,784]
  weight @fc1.weight : f32[512,784] = normal(mean=0.0, std=0.0357, seed=1234)
  weight @fc1.bias : f32[512] = constant(0.0)
  %0 = linear(@x, @fc1.weight, @fc1.bias) : f32[1,512]
  %1 = relu(%0) : f32[1,512]
  %2 = softmax(%1) {axis = -1} : f32[1,512]
  output @probs = %2
}
)");
}

TEST(IrTextTest, AcceptsCommentsNamedValuesAndAnyArgumentOrder) {
  const std::string text = R"(// leading comment
graph @g {  // trailing comment
  input @x : f32[2]
  weight @w : f32[2] = uniform(seed=3, high=2.5e0, low=-1)
  %a = add(@x, @w) {} : f32[2]   // empty attribute braces are fine
  %b.c = mul(%a, %a) : f32[2]
  %zz = constant() {value = -inf, shape = [], dtype = "f32"} : f32[]
  output @y = %b.c
  output @z = %zz
}
// after the graph
)";
  const Graph g = parse_graph(text);
  EXPECT_EQ(*g.params[1].init, Initializer::uniform(-1, 2.5, 3));
  EXPECT_EQ(g.ops[2].attrs.get_float("value"), -kInf);
  EXPECT_EQ(print_graph(g), R"(graph @g {
  input @x : f32[2]
  weight @w : f32[2] = uniform(low=-1.0, high=2.5, seed=3)
  %0 = add(@x, @w) : f32[2]
  %1 = mul(%0, %0) : f32[2]
  %2 = constant() {dtype = "f32", shape = [], value = -inf} : f32[]
  output @y = %1
  output @z = %2
}
)");
}

TEST(IrTextTest, IntegerAndFloatAttributesStayDistinct) {
  const Graph g = parse_graph(R"(graph @g {
  input @x : f32[2]
  %0 = relu(@x) {"t.i" = 3, "t.f" = 3.0, "t.e" = 3e0, "t.n" = -7, "t.big" = 1E2} : f32[2]
  output @y = %0
})");
  const Attrs& a = g.ops[0].attrs;
  EXPECT_TRUE(std::holds_alternative<int64_t>(a.values().at("t.i")));
  EXPECT_TRUE(std::holds_alternative<double>(a.values().at("t.f")));
  EXPECT_TRUE(std::holds_alternative<double>(a.values().at("t.e")));
  EXPECT_TRUE(std::holds_alternative<int64_t>(a.values().at("t.n")));
  EXPECT_EQ(a.get_float("t.big"), 100.0);
  EXPECT_THAT(print_graph(g), HasSubstr("{\"t.big\" = 100.0, \"t.e\" = 3.0, \"t.f\" = 3.0, \"t.i\" = 3, \"t.n\" = -7}"));
}

TEST(IrTextTest, FloatsRoundTripBitExactly) {
  std::mt19937_64 gen(5);
  for (int i = 0; i < 2000; ++i) {
    uint64_t bits = gen();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (std::isnan(v)) continue;
    GraphBuilder b("f");
    const ValueId x = b.input("x", DType::F32, {1});
    b.output("y", b.op(OpKind::Relu, {x}, {{"test.v", v}}));
    const Graph g = parse_graph(print_graph(b.finish()));
    const double back = std::get<double>(g.ops[0].attrs.values().at("test.v"));
    ASSERT_EQ(std::memcmp(&back, &v, sizeof v), 0) << v;
  }
}

// ---- errors ----

std::string parse_error(const std::string& text, const std::string& source = "<input>") {
  try {
    parse_graph(text, source);
  } catch (const ParseError& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kHead = "graph @g {\n  input @x : f32[2]\n";

TEST(IrTextErrorTest, UnknownOp) {
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = frobnicate(@x) : f32[2]\n  output @y = %0\n}\n", "m.mtir"),
            "m.mtir:3:8: unknown op 'frobnicate'");
}

TEST(IrTextErrorTest, UndefinedValues) {
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(@x) : f32[2]\n  %1 = add(%0, %7) : f32[2]\n}\n"),
            "<input>:4:16: undefined value '%7'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(@w) : f32[2]\n}\n"),
            "<input>:3:13: undefined parameter '@w'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  output @y = %3\n}\n"), "<input>:3:15: undefined value '%3'");
  // Use before definition is an undefined value too.
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(%1) : f32[2]\n  %1 = relu(@x) : f32[2]\n}\n"),
            "<input>:3:13: undefined value '%1'");
}

TEST(IrTextErrorTest, BadTypes) {
  EXPECT_THAT(parse_error("graph @g {\n  input @x : f33[2]\n}\n"),
              testing::StartsWith("<input>:2:14: unknown dtype 'f33'"));
  EXPECT_EQ(parse_error("graph @g {\n  input @x : f32[2,-1]\n}\n"), "<input>:2:20: dimension -1 must not be negative");
  EXPECT_EQ(parse_error("graph @g {\n  input @x : f32[2.5]\n}\n"), "<input>:2:18: expected a dimension, got '2.5'");
  EXPECT_EQ(parse_error("graph @g {\n  input @x : f32(2)\n}\n"), "<input>:2:17: expected '[' after the dtype, got '('");
  EXPECT_EQ(parse_error("graph @g {\n  input @x : f32[99999999999999999999]\n}\n"),
            "<input>:2:18: integer 99999999999999999999 out of range");
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(@x) : f32[3]\n  output @y = %0\n}\n"),
            "<input>:3:19: declared type f32[3] does not match the inferred type f32[2]");
}

TEST(IrTextErrorTest, OpErrorsNameTheOp) {
  EXPECT_THAT(parse_error(std::string(kHead) + "  %0 = matmul(@x, @x) : f32[2]\n}\n"),
              testing::StartsWith("<input>:3:8: matmul: matmul operands must have rank >= 2"));
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = add(@x) : f32[2]\n}\n"),
            "<input>:3:8: 'add' takes 2 operand(s), got 1");
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = linear(@x) : f32[2]\n}\n"),
            "<input>:3:8: 'linear' takes 2 to 3 operand(s), got 1");
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = concat() {axis = 0} : f32[2]\n}\n"),
            "<input>:3:8: 'concat' takes at least 1 operand(s), got 0");
  EXPECT_THAT(parse_error(std::string(kHead) + "  %0 = cast(@x) {dtype = \"f128\"} : f32[2]\n}\n"),
              testing::StartsWith("<input>:3:8: cast: attribute 'dtype': unknown dtype 'f128'"));
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = softmax(@x) {axis = 1, axis = 0} : f32[2]\n}\n"),
            "<input>:3:31: duplicate attribute 'axis'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(@x) {a = [1, 2.5]} : f32[2]\n}\n"),
            "<input>:3:26: expected an integer (attribute lists hold integers only), got '2.5'");
}

TEST(IrTextErrorTest, MissingBrace) {
  EXPECT_EQ(parse_error(std::string(kHead) + "  output @y = @x\n"),
            "<input>:4:1: expected '}' at the end of the graph, got end of input");
  EXPECT_EQ(parse_error("graph @g\n  input @x : f32[2]\n}"), "<input>:2:3: expected '{', got 'input'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  output @y = @x\n}\n}\n"),
            "<input>:5:1: unexpected '}' after the end of the graph");
}

TEST(IrTextErrorTest, UnterminatedStringsAndBadLexemes) {
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = gelu(@x) {approximate = \"tanh} : f32[2]\n}\n"),
            "<input>:3:32: unterminated string");
  EXPECT_EQ(parse_error("graph @\"abc"), "<input>:1:8: unterminated string");
  EXPECT_EQ(parse_error("graph @\"a\\qb\" {}"),
            "<input>:1:10: invalid escape in string (use \\\", \\\\, \\n, \\t or \\xHH)");
  EXPECT_EQ(parse_error("graph @g {\n  input @x : f32[2] $\n}"), "<input>:2:21: unexpected character '$'");
  EXPECT_EQ(parse_error("graph @g {\n\t\xff}"), "<input>:2:2: unexpected byte 0xff");
  EXPECT_EQ(parse_error("graph @ {}"), "<input>:1:7: expected a name after '@'");
  EXPECT_EQ(parse_error("graph @g { % = relu(@x) }"), "<input>:1:12: expected a name after '%'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(@x) {a = 1.} : f32[2]\n}"),
            "<input>:3:24: expected digits after '.'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(@x) {a = -x} : f32[2]\n}"), "<input>:3:22: unexpected '-x'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(@x) {a = 1e} : f32[2]\n}"),
            "<input>:3:24: expected digits in the exponent");
  EXPECT_EQ(parse_error(""), "<input>:1:1: expected 'graph', got end of input");
  EXPECT_EQ(parse_error("// only a comment"), "<input>:1:18: expected 'graph', got end of input");
}

TEST(IrTextErrorTest, ParamsAndInitializers) {
  EXPECT_EQ(parse_error(std::string(kHead) + "  input @x : f32[2]\n}\n"), "<input>:3:9: duplicate parameter '@x'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  weight @w : f32[2]\n}\n"),
            "<input>:4:1: expected '= <initializer>' (normal, uniform, constant or data), got '}'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  weight @w : f32[2] = normal(mean=0, std=1)\n}\n"),
            "<input>:3:44: normal() needs 'seed'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  weight @w : f32[2] = normal(mean=0, std=1, seed=-1)\n}\n"),
            "<input>:3:51: expected a seed (unsigned 64-bit integer), got '-1'");
  EXPECT_EQ(
      parse_error(std::string(kHead) + "  weight @w : f32[2] = normal(mean=0, std=1, seed=18446744073709551616)\n}\n"),
      "<input>:3:51: seed 18446744073709551616 out of range");
  EXPECT_EQ(parse_error(std::string(kHead) + "  weight @w : f32[2] = uniform(low=0, mean=1, seed=1)\n}\n"),
            "<input>:3:39: unknown uniform() argument 'mean' (expected low, high, seed)");
  EXPECT_EQ(parse_error(std::string(kHead) + "  weight @w : f32[2] = uniform(low=0, low=1)\n}\n"),
            "<input>:3:39: duplicate uniform() argument 'low'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  weight @w : f32[2] = zeros()\n}\n"),
            "<input>:3:24: expected an initializer (normal(...), uniform(...), constant(...) or data), got 'zeros'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  weight @w : f32[2] = constant(1e999)\n}\n"),
            "<input>:3:33: number 1e999 out of range");
  EXPECT_EQ(parse_error(std::string(kHead) + "  output @y = @x\n  output @y = @x\n}\n"),
            "<input>:4:10: duplicate output '@y'");
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(@x) : f32[2]\n  %0 = relu(@x) : f32[2]\n}\n"),
            "<input>:4:3: value '%0' is already defined");
  EXPECT_EQ(parse_error("graph @g {\n  input @\"\" : f32[2]\n}\n"), "<input>:2:9: parameter names must not be empty");
}

TEST(IrTextErrorTest, VerifierErrorsCarryAPosition) {
  EXPECT_EQ(parse_error(std::string(kHead) + "  %0 = relu(@x) : f32[2]\n}\n"), "<input>:4:1: graph 'g' has no outputs");
}

TEST(IrTextTest, PrintingAnInvalidGraphGivesTextThatFailsToParse) {
  Graph g;
  g.name = "broken";
  const ValueId x = g.add_value({DType::F32, {2}}, "x");
  g.params.push_back({"x", ParamKind::Input, x, std::nullopt, {}, ""});
  const ValueId y = g.add_value({DType::F32, {2}});
  g.ops.push_back({OpKind::Relu, {42}, y, {}});
  g.ops.push_back({OpKind::Relu, {-3}, 77, {}});
  g.outputs.push_back({"y", y});
  const std::string text = print_graph(g);
  EXPECT_THAT(text, HasSubstr("%0 = relu(%undefined42) : f32[2]"));
  EXPECT_THAT(text, HasSubstr("%1 = relu(%undefined_neg3) : <invalid value>"));
  EXPECT_THAT(parse_error(text), HasSubstr("undefined value '%undefined42'"));
}

// ---- garbage in: only ParseError out, never a crash or a hang ----

void expect_only_parse_errors(const std::string& text) {
  try {
    const Graph g = parse_graph(text);
    // Whatever parses must print and re-parse to the same text.
    const std::string printed = print_graph(g);
    EXPECT_EQ(print_graph(parse_graph(printed)), printed);
  } catch (const ParseError&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << "non-ParseError " << e.what() << " for input:\n" << text;
  }
}

TEST(IrTextFuzzTest, RandomBytes) {
  std::mt19937 gen(1234);
  for (int i = 0; i < 3000; ++i) {
    std::string text(gen() % 200, '\0');
    for (char& c : text) c = static_cast<char>(gen() % 256);
    if (i % 2) text = "graph @g {\n" + text;  // get past the first token half the time
    expect_only_parse_errors(text);
  }
}

TEST(IrTextFuzzTest, EveryTruncationOfAValidText) {
  const std::string text = print_graph(every_op_graph());
  for (size_t n = 0; n < text.size(); ++n) {
    const std::string prefix = text.substr(0, n);
    if (n < text.size() - 1) {
      EXPECT_THROW(parse_graph(prefix), ParseError) << "prefix of " << n << " bytes";
    } else {
      expect_only_parse_errors(prefix);
    }
  }
}

TEST(IrTextFuzzTest, MutationsOfAValidText) {
  const std::string text = print_graph(every_op_graph());
  const std::string alphabet = "{}()[],=:@%\"\\-.e0123456789 \n/xinfa";
  std::mt19937 gen(99);
  for (int i = 0; i < 3000; ++i) {
    std::string t = text;
    const int edits = 1 + static_cast<int>(gen() % 4);
    for (int k = 0; k < edits; ++k) {
      const size_t pos = gen() % t.size();
      const char c = (gen() % 2) ? alphabet[gen() % alphabet.size()] : static_cast<char>(gen() % 256);
      switch (gen() % 3) {
        case 0:
          t[pos] = c;
          break;
        case 1:
          t.insert(t.begin() + static_cast<std::ptrdiff_t>(pos), c);
          break;
        default:
          t.erase(pos, 1 + gen() % 8);
          break;
      }
      if (t.empty()) t = "x";
    }
    expect_only_parse_errors(t);
  }
}

TEST(IrTextFuzzTest, ExtremeNumbersInEveryNumericField) {
  // Shapes, attributes and seeds replaced one at a time by extreme integers:
  // type inference must reject them cleanly (no overflow, no division by zero).
  const std::string text = print_graph(every_op_graph());
  const char* extremes[] = {"0",         "-1", "9223372036854775807", "-9223372036854775808", "4611686018427387904",
                            "3037000500"};
  for (size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])) ||
        (i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1])))) {
      continue;
    }
    size_t end = i;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    const size_t start = i > 0 && text[i - 1] == '-' ? i - 1 : i;
    for (const char* x : extremes) expect_only_parse_errors(text.substr(0, start) + x + text.substr(end));
    i = end;
  }
}

TEST(IrTextFuzzTest, TokenSoup) {
  const std::vector<std::string> vocab = {"graph",    "@g",     "@x",       "@w",
                                          "@\"q\"",   "%0",     "%1",       "%2",
                                          "{",        "}",      "(",        ")",
                                          "[",        "]",      ",",        "=",
                                          ":",        "input",  "weight",   "output",
                                          "relu",     "add",    "matmul",   "conv2d",
                                          "reshape",  "concat", "slice",    "cast",
                                          "constant", "normal", "uniform",  "data",
                                          "mean",     "std",    "seed",     "low",
                                          "high",     "f32",    "i64",      "bf16",
                                          "f32[2]",   "f32[]",  "f32[2,2]", "1",
                                          "-1",       "0",      "2",        "1.5",
                                          "inf",      "-nan",   "1e400",    "99999999999999999999",
                                          "\"s\"",    "axis",   "shape",    "dtype",
                                          "value",    "perm",   "axes",     "-",
                                          "\n",       "//c\n"};
  std::mt19937 gen(4321);
  for (int i = 0; i < 5000; ++i) {
    std::string t = i % 3 ? "graph @g {\n input @x : f32[2]\n" : "";
    const int n = static_cast<int>(gen() % 40);
    for (int k = 0; k < n; ++k) t += vocab[gen() % vocab.size()] + (gen() % 2 ? " " : "");
    expect_only_parse_errors(t);
  }
}

}  // namespace
}  // namespace meshtest
