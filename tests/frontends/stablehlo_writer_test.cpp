// The StableHLO writer: @main's signature (inputs, then weights in params
// order, meshtest.name / mhlo.sharding / jax.result_info), inline weights,
// composites, the spelling of each op family, every OpKind written by at
// least one case here (a new op without one fails), SSA well-formedness of
// every module written, the literal and sharding spellings, and the zoo's
// llama_tiny and resnet18 written whole.
#include "frontends/stablehlo/stablehlo_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/graph_builder.h"
#include "core/op_def.h"
#include "core/safetensors.h"
#include "frontends/stablehlo/stablehlo_emitters.h"
#include "frontends/stablehlo/stablehlo_text.h"
#include "tests/models/loader_plugin.h"

namespace meshtest::frontends::stablehlo {
namespace {

using K = OpKind;

// Every %name used is defined earlier (function/block arguments or results),
// no name is defined twice, and braces balance: what an MLIR parser checks
// first. Returns "" or what is wrong.
std::string ssa_problems(const std::string& text) {
  std::set<std::string> defined;
  const std::regex name(R"(%[A-Za-z0-9_#]+)");
  const std::regex definition(R"(^\s*(%[A-Za-z0-9_]+)(:[0-9]+)? = )");
  const std::regex argument(R"((%arg[0-9]+): )");
  int depth = 0;
  size_t line_no = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    ++line_no;
    for (char ch : line) depth += ch == '{' ? 1 : ch == '}' ? -1 : 0;
    if (line.find("func.func") != std::string::npos) defined.clear();  // each function is its own scope
    for (auto it = std::sregex_iterator(line.begin(), line.end(), argument); it != std::sregex_iterator(); ++it) {
      if (!defined.insert((*it)[1]).second) return "line " + std::to_string(line_no) + ": " + (*it)[1].str() + " twice";
    }
    std::smatch def;
    std::string uses = line;
    if (std::regex_search(line, def, definition)) uses = def.suffix();
    for (auto it = std::sregex_iterator(uses.begin(), uses.end(), name); it != std::sregex_iterator(); ++it) {
      const std::string used = it->str().substr(0, it->str().find('#'));  // %4#1: result 1 of %4
      if (defined.count(used) == 0) return "line " + std::to_string(line_no) + ": " + used + " used undefined";
    }
    if (!def.empty() && !defined.insert(def[1]).second) {
      return "line " + std::to_string(line_no) + ": " + def[1].str() + " defined twice";
    }
  }
  return depth == 0 ? "" : "unbalanced braces";
}

std::string write_checked(const Graph& graph, const WriteOptions& options = {}) {
  const std::string text = write_stablehlo(graph, options);
  EXPECT_EQ(ssa_problems(text), "") << text;
  return text;
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

Graph linear_graph(DType weight_dtype = DType::F32) {
  GraphBuilder b("lin");
  const ValueId x = b.input("x", weight_dtype, {2, 4});
  const ValueId w = b.weight("w", {3, 4}, Initializer::normal(0, 1, 7), weight_dtype);
  const ValueId bias = b.weight("b", {3}, Initializer::constant(0.5), weight_dtype);
  b.output("y", b.linear(x, w, bias));
  return b.finish();
}

TEST(StablehloWriter, MainTakesInputsThenWeightsNamedAndReturnsNamedResults) {
  const std::string text = write_checked(linear_graph());
  EXPECT_TRUE(
      contains(text, "module @jit_lin attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {"))
      << text;
  EXPECT_TRUE(contains(text,
                       "func.func public @main(%arg0: tensor<2x4xf32> {meshtest.name = \"x\"}, "
                       "%arg1: tensor<3x4xf32> {meshtest.name = \"w\"}, "
                       "%arg2: tensor<3xf32> {meshtest.name = \"b\"}) -> "
                       "(tensor<2x3xf32> {jax.result_info = \"y\"}) {"))
      << text;
  EXPECT_TRUE(contains(text,
                       "stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : "
                       "(tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>"))
      << text;
  EXPECT_TRUE(contains(text, "stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>"))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(    return %[0-9]+ : tensor<2x3xf32>\n  \}\n\}\n$)"))) << text;
  EXPECT_EQ(stablehlo_argument_names(linear_graph()), (std::vector<std::string>{"x", "w", "b"}));
}

TEST(StablehloWriter, InlineWeightsAreConstantsAndLeaveTheInputsAlone) {
  WriteOptions options;
  options.inline_weights = true;
  const std::string text = write_checked(linear_graph(), options);
  EXPECT_TRUE(contains(text, "@main(%arg0: tensor<2x4xf32> {meshtest.name = \"x\"}) ->")) << text;
  EXPECT_TRUE(
      std::regex_search(text, std::regex(R"(%cst = stablehlo.constant dense<"0x[0-9A-F]{96}"> : tensor<3x4xf32>)")))
      << text;
  EXPECT_TRUE(contains(text, "%cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<3xf32>")) << text;
  EXPECT_EQ(stablehlo_argument_names(linear_graph(), options), (std::vector<std::string>{"x"}));
}

TEST(StablehloWriter, Bf16WeightsAreBf16ArgumentsAndBf16InTheWeightsFile) {
  const Graph graph = linear_graph(DType::BF16);
  const std::string text = write_checked(graph);
  EXPECT_TRUE(contains(text, "%arg1: tensor<3x4xbf16> {meshtest.name = \"w\"}")) << text;
  const auto path = std::filesystem::temp_directory_path() / "stablehlo_writer_test_weights.safetensors";
  write_stablehlo_weights(graph, path.string());
  const auto tensors = read_safetensors(path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(tensors.at("w").dtype(), DType::BF16);
  EXPECT_EQ(tensors.at("b").to_f32_vector(), std::vector<float>(3, 0.5f));
}

TEST(StablehloWriter, MarkWeightsTagsTheWeightArguments) {
  WriteOptions options;
  options.mark_weights = true;
  const std::string text = write_checked(linear_graph(), options);
  EXPECT_TRUE(contains(text, "{meshtest.kind = \"weight\", meshtest.name = \"w\"}")) << text;
  EXPECT_TRUE(contains(text, "{meshtest.kind = \"weight\", meshtest.name = \"b\"}")) << text;
  EXPECT_TRUE(contains(text, "{meshtest.name = \"x\"}")) << text;
  EXPECT_FALSE(contains(write_checked(linear_graph()), "meshtest.kind"));
}

TEST(StablehloWriter, ShardedArgumentsCarryGspmdShardings) {
  WriteOptions options;
  options.mesh = Mesh{{2, 4}, {"batch", "model"}};
  options.shardings["w"] = Sharding{{{1}, {}}};  // rows over "model", replicated over "batch"
  options.shardings["x"] = Sharding{{{0}, {1}}};
  const std::string text = write_checked(linear_graph(), options);
  EXPECT_TRUE(contains(text, "mhlo.num_partitions = 8 : i32")) << text;
  EXPECT_TRUE(contains(text, "{meshtest.name = \"x\", mhlo.sharding = \"{devices=[2,4]<=[8]}\"}")) << text;
  EXPECT_TRUE(contains(text,
                       "{meshtest.name = \"w\", mhlo.sharding = \"{devices=[4,1,2]<=[2,4]T(1,0) "
                       "last_tile_dim_replicate}\"}"))
      << text;
}

TEST(StablehloText, ShardingSpellings) {
  const Mesh mesh{{2, 4}, {"batch", "model"}};
  EXPECT_EQ(hlo_sharding(mesh, Sharding::replicated(2), 2), "{replicated}");
  EXPECT_EQ(hlo_sharding(mesh, Sharding{{{0, 1}, {}}}, 2), "{devices=[8,1]<=[8]}");
  EXPECT_EQ(hlo_sharding(mesh, Sharding{{{1, 0}}}, 1), "{devices=[8]<=[2,4]T(1,0)}");
  EXPECT_EQ(hlo_sharding(mesh, Sharding{{{}, {0}}}, 2), "{devices=[1,2,4]<=[8] last_tile_dim_replicate}");
  const Mesh one_row{{1, 2}, {"batch", "model"}};  // an axis of one chip orders nothing
  EXPECT_EQ(hlo_sharding(one_row, Sharding{{{1}, {}}}, 2), "{devices=[2,1]<=[2]}");
  EXPECT_EQ(hlo_sharding(one_row, Sharding{{{}, {1, 0}}}, 2), "{devices=[1,2]<=[2]}");
}

TEST(StablehloText, LiteralsReadBackToTheSameBits) {
  EXPECT_EQ(scalar_literal(0.0, DType::F32), "0.000000e+00");
  EXPECT_EQ(scalar_literal(1e-5, DType::F32), "1.000000e-05");
  EXPECT_EQ(scalar_literal(1.0f / 3.0f, DType::F32), "3.3333334e-01");  // the shortest that reads back
  EXPECT_EQ(std::strtof(scalar_literal(0.7978845608028654, DType::F32).c_str(), nullptr), 0.7978845608028654f);
  EXPECT_EQ(scalar_literal(INFINITY, DType::F32), "0x7F800000");
  EXPECT_EQ(scalar_literal(-INFINITY, DType::BF16), "0xFF80");
  EXPECT_EQ(scalar_literal(NAN, DType::F32), "0x7FC00000");
  EXPECT_EQ(scalar_literal(-3, DType::I32), "-3");
  EXPECT_EQ(scalar_literal(1, DType::Bool), "true");
  EXPECT_EQ(scalar_literal(1.0 / 3.0, DType::F64), "3.333333333333333e-01");
  EXPECT_EQ(scalar_literal(highest_value(DType::I64), DType::I64), "9223372036854775807");
  EXPECT_EQ(scalar_literal(highest_value(DType::U64), DType::U64), "18446744073709551615");
  EXPECT_EQ(scalar_literal(lowest_value(DType::I8), DType::I8), "-128");
  EXPECT_EQ(tensor_type(DType::U8, {2, 0}), "tensor<2x0xui8>");
  EXPECT_EQ(tensor_type(DType::Bool, {}), "tensor<i1>");
  EXPECT_EQ(dense_literal(Tensor::from_f32({2}, {1.0f, 2.0f}), DType::F32), "dense<\"0x0000803F00000040\">");
  EXPECT_EQ(dense_literal(Tensor::from_f32({2}, {1.0f, 2.0f}), DType::BF16), "dense<\"0x803F0040\">");
  EXPECT_EQ(dense_literal(Tensor::from_i64({2, 2}, {1, 0, 0, 1}).to(DType::Bool), DType::Bool),
            "dense<[[true, false], [false, true]]>");
}

Graph gelu_graph() {
  GraphBuilder b("g");
  const ValueId x = b.input("x", DType::F32, {2, 3});
  const ValueId h = b.op(K::Gelu, {x}, {{"approximate", std::string("tanh")}});
  b.output("y", b.op(K::Gelu, {h}, {{"approximate", std::string("tanh")}}));
  return b.finish();
}

TEST(StablehloWriter, CompositesCallOnePrivateDecompositionPerDistinctOp) {
  WriteOptions options;
  options.composites = true;
  const std::string text = write_checked(gelu_graph(), options);
  EXPECT_TRUE(contains(text,
                       "stablehlo.composite \"tenstorrent.gelu_tanh\" %arg0 {composite_attributes = "
                       "{approximate = \"tanh\"}, decomposition = @tenstorrent.gelu_tanh.impl} : "
                       "(tensor<2x3xf32>) -> tensor<2x3xf32>"))
      << text;
  EXPECT_TRUE(contains(text,
                       "func.func private @tenstorrent.gelu_tanh.impl(%arg0: tensor<2x3xf32>) -> "
                       "tensor<2x3xf32> {"))
      << text;
  EXPECT_FALSE(contains(text, "gelu_tanh.impl_1")) << text;  // both calls share one function
  EXPECT_TRUE(contains(text, "stablehlo.tanh")) << text;

  const std::string inline_text = write_checked(gelu_graph());
  EXPECT_FALSE(contains(inline_text, "composite")) << inline_text;
}

// ---- every op ----

// One small graph per op, and a piece of text its writing must hold.
struct OpCase {
  std::function<void(GraphBuilder&)> build;  // adds the op and its output "y"
  std::string marker;
  WriteOptions options = {};
};

Attrs ints(const std::string& name, std::vector<int64_t> v) { return Attrs{{name, std::move(v)}}; }

// An op of no attributes over inputs of [2, 3], in the first dtype its type rule takes.
OpCase elementwise(OpKind kind, std::string marker) {
  return {[kind](GraphBuilder& b) {
            for (DType dtype : {DType::F32, DType::I32, DType::Bool}) {
              const int n = op_min_inputs(kind);
              std::vector<TensorType> types(static_cast<size_t>(n), TensorType{dtype, {2, 3}});
              try {
                infer_type(kind, types, {});
              } catch (const CompileError&) {
                continue;
              }
              std::vector<ValueId> in;
              for (int i = 0; i < n; ++i) in.push_back(b.input("x" + std::to_string(i), dtype, {2, 3}));
              b.output("y", b.op(kind, in));
              return;
            }
            throw std::logic_error("no dtype fits " + std::string(op_name(kind)));
          },
          std::move(marker)};
}

OpCase single(OpKind kind, std::vector<TensorType> inputs, Attrs attrs, std::string marker, WriteOptions options = {}) {
  return {[=](GraphBuilder& b) {
            std::vector<ValueId> in;
            for (size_t i = 0; i < inputs.size(); ++i) {
              in.push_back(b.input("x" + std::to_string(i), inputs[i].dtype, inputs[i].shape));
            }
            b.output("y", b.op(kind, in, attrs));
          },
          std::move(marker), std::move(options)};
}

WriteOptions on_mesh() {
  WriteOptions o;
  o.mesh = Mesh{{2, 2}, {"batch", "model"}};
  return o;
}

TensorType f32(Shape s) { return {DType::F32, std::move(s)}; }

// The ops taken from StableHLO, written back as themselves.
void add_structural_cases(std::map<OpKind, OpCase>& c) {
  const TensorType i32_scalar{DType::I32, {}};
  c.emplace(K::BroadcastInDim,
            single(K::BroadcastInDim, {f32({3})},
                   {{"shape", std::vector<int64_t>{2, 3}}, {"broadcast_dimensions", std::vector<int64_t>{1}}},
                   "stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>"));
  c.emplace(K::Pad, single(K::Pad, {f32({2, 3}), f32({})},
                           {{"low", std::vector<int64_t>{1, 0}},
                            {"high", std::vector<int64_t>{0, -1}},
                            {"interior", std::vector<int64_t>{1, 0}}},
                           "stablehlo.pad %arg0, %arg1, low = [1, 0], high = [0, -1], interior = [1, 0] : "
                           "(tensor<2x3xf32>, tensor<f32>) -> tensor<4x2xf32>"));
  c.emplace(K::Reverse, single(K::Reverse, {f32({2, 3})}, ints("dimensions", {0}),
                               "stablehlo.reverse %arg0, dims = [0] : tensor<2x3xf32>"));
  c.emplace(K::DynamicSlice, single(K::DynamicSlice, {f32({4, 5}), i32_scalar, i32_scalar}, ints("slice_sizes", {2, 3}),
                                    "stablehlo.dynamic_slice %arg0, %arg1, %arg2, sizes = [2, 3] : "
                                    "(tensor<4x5xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>"));
  c.emplace(K::DynamicUpdateSlice,
            single(K::DynamicUpdateSlice, {f32({4, 5}), f32({2, 3}), i32_scalar, i32_scalar}, {},
                   "stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg3 : "
                   "(tensor<4x5xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x5xf32>"));
  const Attrs rows = {{"start_index_map", std::vector<int64_t>{0}}, {"index_vector_dim", int64_t{1}}};
  Attrs gather = rows;
  gather.set("offset_dims", std::vector<int64_t>{1});
  gather.set("collapsed_slice_dims", std::vector<int64_t>{0});
  gather.set("slice_sizes", std::vector<int64_t>{1, 4});
  c.emplace(K::Gather, single(K::Gather, {f32({5, 4}), {DType::I64, {3, 1}}}, gather,
                              "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = "
                              "[0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}>"));
  const Attrs scatter = {{"update_window_dims", std::vector<int64_t>{1}},
                         {"inserted_window_dims", std::vector<int64_t>{0}},
                         {"scatter_dims_to_operand_dims", std::vector<int64_t>{0}},
                         {"index_vector_dim", int64_t{1}},
                         {"combiner", std::string("assign")}};
  c.emplace(K::Scatter, single(K::Scatter, {f32({5, 4}), {DType::I64, {3, 1}}, f32({3, 4})}, scatter,
                               "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], "
                               "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>"));
  c.emplace(K::DotGeneral, single(K::DotGeneral, {f32({2, 3, 4}), f32({2, 4, 5})},
                                  {{"lhs_batching_dims", std::vector<int64_t>{0}},
                                   {"rhs_batching_dims", std::vector<int64_t>{0}},
                                   {"lhs_contracting_dims", std::vector<int64_t>{2}},
                                   {"rhs_contracting_dims", std::vector<int64_t>{1}},
                                   {"dtype", std::string("f32")}},
                                  "batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
                                  "(tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>"));
  c.emplace(K::Convolution, single(K::Convolution, {f32({1, 8, 8, 2}), f32({3, 3, 2, 4})},
                                   {{"window_strides", std::vector<int64_t>{1, 1}},
                                    {"padding", std::vector<int64_t>{1, 1, 1, 1}},
                                    {"input_batch_dimension", int64_t{0}},
                                    {"input_feature_dimension", int64_t{3}},
                                    {"input_spatial_dimensions", std::vector<int64_t>{1, 2}},
                                    {"kernel_input_feature_dimension", int64_t{2}},
                                    {"kernel_output_feature_dimension", int64_t{3}},
                                    {"kernel_spatial_dimensions", std::vector<int64_t>{0, 1}},
                                    {"output_batch_dimension", int64_t{0}},
                                    {"output_feature_dimension", int64_t{3}},
                                    {"output_spatial_dimensions", std::vector<int64_t>{1, 2}},
                                    {"dtype", std::string("f32")}},
                                   "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], "
                                   "pad = [[1, 1], [1, 1]]}"));
  c.emplace(K::Reduce, single(K::Reduce, {f32({2, 3}), f32({})},
                              {{"dimensions", std::vector<int64_t>{1}}, {"combiner", std::string("max")}},
                              "stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.maximum across dimensions = [1]"));
  c.emplace(K::ReduceArg,
            single(K::ReduceArg, {f32({2, 5})}, {{"dimension", int64_t{1}}, {"direction", std::string("max")}},
                   "\"stablehlo.reduce\"(%arg0, %0, %cst, %c) <{dimensions = array<i64: 1>}>"));
  c.emplace(K::ReduceWindow, single(K::ReduceWindow, {f32({1, 6}), f32({})},
                                    {{"window_dimensions", std::vector<int64_t>{1, 3}},
                                     {"window_strides", std::vector<int64_t>{1, 2}},
                                     {"padding", std::vector<int64_t>{0, 0, 1, 1}},
                                     {"combiner", std::string("add")}},
                                    "padding = dense<[[0, 0], [1, 1]]> : tensor<2x2xi64>, window_dimensions = "
                                    "array<i64: 1, 3>, window_strides = array<i64: 1, 2>"));
  c.emplace(K::SelectAndScatter, single(K::SelectAndScatter, {f32({1, 6}), f32({1, 2}), f32({})},
                                        {{"window_dimensions", std::vector<int64_t>{1, 3}},
                                         {"window_strides", std::vector<int64_t>{1, 3}},
                                         {"select", std::string("ge")}},
                                        "stablehlo.compare  GE"));
  c.emplace(K::SortPermutation, single(K::SortPermutation, {f32({2, 5}), {DType::I32, {2, 5}}},
                                       {{"dimension", int64_t{1}}, {"directions", std::vector<int64_t>{1, 0}}},
                                       "\"stablehlo.sort\"(%arg0, %arg1, %0) <{dimension = 1 : i64}>"));
  c.emplace(K::TakeAlongAxis, single(K::TakeAlongAxis, {f32({3, 4}), {DType::I64, {3, 2}}}, {{"axis", int64_t{1}}},
                                     "#stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], "
                                     "index_vector_dim = 2>"));
}

const std::map<OpKind, OpCase>& op_cases() {
  static const std::map<OpKind, OpCase> cases = [] {
    std::map<OpKind, OpCase> c;
    const std::vector<std::pair<OpKind, std::string>> direct = {
        {K::Relu, "stablehlo.select"},  // select(x < 0, 0, x): keeps -0, as relu does
        {K::Tanh, "stablehlo.tanh"},
        {K::Exp, "stablehlo.exponential"},
        {K::Log, "stablehlo.log "},
        {K::Sqrt, "stablehlo.sqrt"},
        {K::Rsqrt, "stablehlo.rsqrt"},
        {K::Neg, "stablehlo.negate"},
        {K::Sigmoid, "stablehlo.logistic"},
        {K::Silu, "stablehlo.logistic"},
        {K::Erf, "chlo.erf "},
        {K::Sin, "stablehlo.sine"},
        {K::Cos, "stablehlo.cosine"},
        {K::Add, "stablehlo.add"},
        {K::Sub, "stablehlo.subtract"},
        {K::Mul, "stablehlo.multiply"},
        {K::Div, "stablehlo.divide"},
        {K::Maximum, "stablehlo.maximum"},
        {K::Abs, "stablehlo.abs"},
        {K::Sign, "stablehlo.sign"},
        {K::Floor, "stablehlo.floor"},
        {K::Ceil, "stablehlo.ceil"},
        {K::RoundAfz, "stablehlo.round_nearest_afz"},
        {K::RoundEven, "stablehlo.round_nearest_even"},
        {K::Expm1, "stablehlo.exponential_minus_one"},
        {K::Log1p, "stablehlo.log_plus_one"},
        {K::Cbrt, "stablehlo.cbrt"},
        {K::Tan, "chlo.tan"},
        {K::Not, "stablehlo.not"},
        {K::Popcnt, "stablehlo.popcnt"},
        {K::Clz, "stablehlo.count_leading_zeros"},
        {K::IsFinite, "stablehlo.is_finite %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi1>"},
        {K::Minimum, "stablehlo.minimum"},
        {K::Power, "stablehlo.power"},
        {K::Remainder, "stablehlo.remainder"},
        {K::Atan2, "stablehlo.atan2"},
        {K::And, "stablehlo.and"},
        {K::Or, "stablehlo.or"},
        {K::Xor, "stablehlo.xor"},
        {K::ShiftLeft, "stablehlo.shift_left"},
        {K::ShiftRightArithmetic, "stablehlo.shift_right_arithmetic"},
        {K::ShiftRightLogical, "stablehlo.shift_right_logical"},
        {K::Clamp, "stablehlo.clamp %arg0, %arg1, %arg2"},
        {K::NextAfter, "chlo.next_after"},
        {K::Sinh, "chlo.sinh"},
        {K::Cosh, "chlo.cosh"},
        {K::Asin, "chlo.asin"},
        {K::Acos, "chlo.acos"},
        {K::Atan, "chlo.atan "},
        {K::Asinh, "chlo.asinh"},
        {K::Acosh, "chlo.acosh"},
        {K::Atanh, "chlo.atanh"},
        {K::Erfc, "chlo.erfc"},
        {K::ErfInv, "chlo.erf_inv"},
        {K::Lgamma, "chlo.lgamma"},
        {K::Digamma, "chlo.digamma"},
        {K::Greater, "stablehlo.compare  GT, %arg0, %arg1,  FLOAT"},
    };
    for (const auto& [kind, marker] : direct) c.emplace(kind, elementwise(kind, marker));
    c.emplace(K::Gelu, single(K::Gelu, {f32({2, 3})}, {}, "chlo.erf"));
    c.emplace(K::Cast, single(K::Cast, {f32({2, 3})}, {{"dtype", std::string("bf16")}},
                              "stablehlo.convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xbf16>"));
    c.emplace(K::Constant, single(K::Constant, {}, {{"value", 2.5}, {"shape", std::vector<int64_t>{2}}},
                                  "stablehlo.constant dense<2.500000e+00> : tensor<2xf32>"));
    c.emplace(K::Matmul, single(K::Matmul, {f32({4, 3}), f32({2, 3, 5})}, {},
                                "batching_dims = [0] x [0], contracting_dims = [2] x [1]"));
    c.emplace(K::Linear, single(K::Linear, {f32({2, 4}), f32({3, 4})}, {}, "contracting_dims = [1] x [1]"));
    c.emplace(
        K::Conv2d,
        single(
            K::Conv2d, {f32({1, 4, 8, 8}), f32({6, 2, 3, 3}), f32({6})},
            {{"stride", std::vector<int64_t>{2, 2}}, {"padding", std::vector<int64_t>{1, 1}}, {"groups", int64_t{2}}},
            "dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], "
            "pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64}"));
    const Attrs pool = {{"kernel", std::vector<int64_t>{3, 3}},
                        {"stride", std::vector<int64_t>{2, 2}},
                        {"padding", std::vector<int64_t>{1, 1}}};
    c.emplace(K::MaxPool2d,
              single(K::MaxPool2d, {f32({1, 2, 8, 8})}, pool,
                     "\"stablehlo.reduce_window\"(%arg0, %cst) <{padding = dense<[[0, 0], [0, 0], [1, 1], "
                     "[1, 1]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 1, 3, 3>, "
                     "window_strides = array<i64: 1, 1, 2, 2>}>"));
    Attrs avg = pool;
    avg.set("count_include_pad", int64_t{0});
    c.emplace(K::AvgPool2d, single(K::AvgPool2d, {f32({1, 2, 8, 8})}, avg,
                                   "stablehlo.constant dense<1.000000e+00> : "
                                   "tensor<1x1x8x8xf32>"));
    c.emplace(K::GlobalAvgPool2d,
              single(K::GlobalAvgPool2d, {f32({1, 2, 4, 4})}, {}, "applies stablehlo.add across dimensions = [2, 3]"));
    c.emplace(K::BatchNorm, single(K::BatchNorm, {f32({1, 3, 2, 2}), f32({3}), f32({3}), f32({3}), f32({3})}, {},
                                   "\"stablehlo.batch_norm_inference\"(%arg0, %arg1, %arg2, %arg3, %arg4)"));
    c.emplace(K::LayerNorm, single(K::LayerNorm, {f32({2, 5}), f32({5}), f32({5})}, {}, "stablehlo.rsqrt"));
    c.emplace(K::Softmax, single(K::Softmax, {f32({2, 5, 3})}, {{"axis", int64_t{1}}},
                                 "applies stablehlo.maximum across dimensions = [1]"));
    c.emplace(K::Embedding, single(K::Embedding, {{DType::I64, {2, 3}}, f32({10, 4})}, {},
                                   "\"stablehlo.gather\"(%arg1, %arg0) <{dimension_numbers = #stablehlo.gather<"
                                   "offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], "
                                   "index_vector_dim = 2>, slice_sizes = array<i64: 1, 4>}>"));
    c.emplace(K::Reshape, single(K::Reshape, {f32({2, 3})}, ints("shape", {3, 2}),
                                 "stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<3x2xf32>"));
    c.emplace(K::Transpose,
              single(K::Transpose, {f32({2, 3})}, ints("perm", {1, 0}), "stablehlo.transpose %arg0, dims = [1, 0]"));
    c.emplace(K::Concat, single(K::Concat, {f32({2, 3}), f32({1, 3})}, {{"axis", int64_t{0}}},
                                "stablehlo.concatenate %arg0, %arg1, dim = 0"));
    c.emplace(K::Slice,
              single(K::Slice, {f32({2, 7})}, {{"axis", int64_t{1}}, {"start", int64_t{-6}}, {"step", int64_t{2}}},
                     "stablehlo.slice %arg0 [0:2, 1:7:2] : (tensor<2x7xf32>) -> tensor<2x3xf32>"));
    c.emplace(K::ReduceSum,
              single(K::ReduceSum, {f32({2, 3})}, {{"axes", std::vector<int64_t>{1}}, {"keepdim", int64_t{1}}},
                     "stablehlo.reshape %0 : (tensor<2xf32>) -> tensor<2x1xf32>"));
    c.emplace(K::ReduceMean, single(K::ReduceMean, {f32({2, 3})}, ints("axes", {0, 1}), "stablehlo.divide"));
    c.emplace(K::ReduceMax, single(K::ReduceMax, {{DType::I32, {2, 3}}}, ints("axes", {-1}),
                                   "stablehlo.constant dense<-2147483648> : tensor<i32>"));
    const Attrs model_group = {{"axes", std::string("model")}, {"group_size", int64_t{2}}, {"dim", int64_t{1}}};
    c.emplace(K::AllGather, single(K::AllGather, {f32({2, 3})}, model_group,
                                   "replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>", on_mesh()));
    c.emplace(K::ReduceScatter,
              single(K::ReduceScatter, {f32({2, 4})}, model_group, "scatter_dimension = 1 : i64", on_mesh()));
    c.emplace(K::AllReduce,
              single(K::AllReduce, {f32({2, 4})}, {{"axes", std::string("batch")}, {"group_size", int64_t{2}}},
                     "replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>", on_mesh()));
    c.emplace(K::AllToAll, single(K::AllToAll, {f32({2, 4})},
                                  {{"axes", std::string("model")},
                                   {"group_size", int64_t{2}},
                                   {"split_dim", int64_t{1}},
                                   {"concat_dim", int64_t{0}}},
                                  "split_count = 2 : i64, split_dimension = 1 : i64", on_mesh()));
    c.emplace(K::ShardSlice,
              single(K::ShardSlice, {f32({2, 4})}, model_group, "stablehlo.replica_id : tensor<ui32>", on_mesh()));
    c.emplace(K::RmsNorm, single(K::RmsNorm, {f32({2, 5}), f32({5})}, {{"eps", 1e-6}}, "stablehlo.rsqrt"));
    c.emplace(K::Sdpa, single(K::Sdpa, {f32({1, 2, 4, 8}), f32({1, 2, 8, 6}), f32({1, 2, 6, 8}), f32({4, 6})},
                              {{"scale", 0.125}}, "batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2]"));
    c.emplace(K::TopkMask, single(K::TopkMask, {f32({3, 8})}, {{"k", int64_t{2}}, {"axis", int64_t{1}}},
                                  "stablehlo.iota dim = 2 : tensor<3x8x8xi32>"));
    const Attrs conv = {
        {"stride", std::vector<int64_t>{2, 2}}, {"padding", std::vector<int64_t>{1, 1}}, {"groups", int64_t{2}}};
    Attrs conv_in = conv;
    conv_in.set("input_shape", std::vector<int64_t>{1, 4, 8, 8});
    c.emplace(K::Conv2dBackwardInput,
              single(K::Conv2dBackwardInput, {f32({1, 6, 4, 4}), f32({6, 2, 3, 3})}, conv_in,
                     "window = {stride = [1, 1], pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2]}"));
    Attrs conv_w = conv;
    conv_w.set("weight_shape", std::vector<int64_t>{6, 2, 3, 3});
    c.emplace(K::Conv2dBackwardWeight,
              single(K::Conv2dBackwardWeight, {f32({1, 4, 8, 8}), f32({1, 6, 4, 4})}, conv_w,
                     "dim_numbers = [f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1], window = {stride = [1, 1], "
                     "pad = [[1, 0], [1, 0]], rhs_dilate = [2, 2]} {batch_group_count = 2 : i64"));
    c.emplace(K::MaxPool2dBackward, single(K::MaxPool2dBackward, {f32({1, 2, 8, 8}), f32({1, 2, 4, 4})}, pool,
                                           "\"stablehlo.select_and_scatter\"(%arg0, %arg1, %cst)"));
    Attrs avg_back = avg;
    avg_back.set("input_shape", std::vector<int64_t>{1, 2, 8, 8});
    c.emplace(K::AvgPool2dBackward, single(K::AvgPool2dBackward, {f32({1, 2, 4, 4})}, avg_back,
                                           "low = [0, 0, 1, 1], high = [0, 0, 2, 2], interior = [0, 0, 1, 1]"));
    c.emplace(K::EmbeddingBackward,
              single(K::EmbeddingBackward, {{DType::I32, {2, 3}}, f32({2, 3, 4})}, {{"num_embeddings", int64_t{10}}},
                     "#stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], "
                     "scatter_dims_to_operand_dims = [0], index_vector_dim = 2>"));
    c.emplace(K::SliceBackward, single(K::SliceBackward, {f32({2, 3})},
                                       {{"axis", int64_t{1}},
                                        {"start", int64_t{1}},
                                        {"step", int64_t{2}},
                                        {"input_shape", std::vector<int64_t>{2, 7}}},
                                       "low = [0, 1], high = [0, 1], interior = [0, 1]"));
    c.emplace(K::EmbeddingShard, single(K::EmbeddingShard, {{DType::I32, {2, 3}}, f32({5, 4}), {DType::I64, {1}}}, {},
                                        "stablehlo.compare  LT"));
    c.emplace(K::Compare, single(K::Compare, {f32({2, 3}), f32({1, 3})},
                                 {{"direction", std::string("LE")}, {"compare_type", std::string("TOTALORDER")}},
                                 "stablehlo.compare  LE, %arg0, %0,  TOTALORDER"));
    c.emplace(K::Select, single(K::Select, {{DType::Bool, {}}, f32({2, 3}), f32({2, 3})}, {},
                                "stablehlo.select %0, %arg1, %arg2 : tensor<2x3xi1>, tensor<2x3xf32>"));
    c.emplace(K::BitcastConvert, single(K::BitcastConvert, {f32({2, 3})},
                                        {{"dtype", std::string("i32")}, {"shape", std::vector<int64_t>{2, 3}}},
                                        "stablehlo.bitcast_convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi32>"));
    c.emplace(K::ReducePrecision,
              single(K::ReducePrecision, {f32({2, 3})}, {{"exponent_bits", int64_t{5}}, {"mantissa_bits", int64_t{10}}},
                     "stablehlo.reduce_precision %arg0, format = e5m10 : tensor<2x3xf32>"));
    c.emplace(K::Iota,
              single(K::Iota, {},
                     {{"dtype", std::string("i32")}, {"shape", std::vector<int64_t>{4, 2}}, {"dimension", int64_t{1}}},
                     "stablehlo.iota dim = 1 : tensor<4x2xi32>"));
    add_structural_cases(c);
    return c;
  }();
  return cases;
}

TEST(StablehloWriter, EveryOpHasAnEmitterOrAStatedReason) {
  const OpTable<Emitter>& table = stablehlo_emitters();
  for (OpKind kind : all_ops()) {
    EXPECT_TRUE(table.find(kind) != nullptr || !table.reason(kind).empty())
        << op_name(kind) << " has no StableHLO emitter and no stated reason";
  }
}

TEST(StablehloWriter, EveryOpHasAWriterCase) {
  for (OpKind kind : all_ops()) {
    EXPECT_TRUE(op_cases().count(kind) != 0 || stablehlo_emitters().find(kind) == nullptr)
        << op_name(kind) << " is written but no case of stablehlo_writer_test.cpp writes it";
  }
}

TEST(StablehloWriter, EachOpIsWrittenAsTheStablehloItMeans) {
  for (const auto& [kind, c] : op_cases()) {
    SCOPED_TRACE(std::string(op_name(kind)));
    GraphBuilder b(std::string(op_name(kind)));
    c.build(b);
    const Graph graph = b.finish();
    std::string text;
    ASSERT_NO_THROW(text = write_checked(graph, c.options));
    EXPECT_TRUE(contains(text, c.marker)) << "missing: " << c.marker << "\n" << text;
    WriteOptions composite = c.options;
    composite.composites = true;
    EXPECT_NO_THROW(write_checked(graph, composite));
  }
}

TEST(StablehloWriter, CollectivesWithoutAMeshNameTheOp) {
  GraphBuilder b("c");
  const ValueId x = b.input("x", DType::F32, {2, 4});
  b.output("y", b.op(K::AllReduce, {x}, {{"axes", std::string("model")}, {"group_size", int64_t{2}}}));
  try {
    write_stablehlo(b.finish());
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_TRUE(contains(e.what(), "op #0 all_reduce")) << e.what();
    EXPECT_TRUE(contains(e.what(), "WriteOptions::mesh")) << e.what();
  }
}

// A chip's program (it holds collectives) is one replica per chip, as jax.pmap
// writes it: XLA's SPMD partitioner would partition it again (checked with
// XLA: all five collectives give meshtest's results on 4 CPU replicas).
TEST(StablehloWriter, PerChipProgramsRunAsOneReplicaPerChip) {
  GraphBuilder b("chip");
  const ValueId x = b.input("x", DType::F32, {2, 4});
  b.output("y", b.op(K::AllReduce, {x}, {{"axes", std::string("model")}, {"group_size", int64_t{2}}}));
  const std::string text = write_checked(b.finish(), on_mesh());
  EXPECT_TRUE(contains(text, "attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32}")) << text;
  EXPECT_TRUE(contains(text, "\"stablehlo.all_reduce\"(%arg0) <{replica_groups = dense<[[0, 1], [2, 3]]> : "
                             "tensor<2x2xi64>}>"))
      << text;
  EXPECT_FALSE(contains(text, "channel_handle")) << text;
}

TEST(StablehloWriter, SdpaCompositeTakesTheKeyUntransposed) {
  WriteOptions options;
  options.composites = true;
  const std::string text = write_checked(
      [] {
        GraphBuilder b("attn");
        const ValueId q = b.input("q", DType::F32, {1, 2, 4, 8});
        const ValueId kt = b.input("kt", DType::F32, {1, 2, 8, 6});
        const ValueId v = b.input("v", DType::F32, {1, 2, 6, 8});
        b.output("y", b.op(K::Sdpa, {q, kt, v}, {{"scale", 0.125}}));
        return b.finish();
      }(),
      options);
  EXPECT_TRUE(contains(text,
                       "stablehlo.transpose %arg1, dims = [0, 1, 3, 2] : (tensor<1x2x8x6xf32>) -> "
                       "tensor<1x2x6x8xf32>"))
      << text;
  EXPECT_TRUE(contains(text,
                       "stablehlo.composite \"tenstorrent.scaled_dot_product_attention\" %arg0, %0, %arg2 "
                       "{composite_attributes = {is_causal = false, scale = 1.250000e-01 : f32}"))
      << text;
}

// ---- the zoo ----

Graph zoo_graph(const std::string& dir, const std::string& variant) {
  return testing::make_loader(dir)->load_model(variant, {}).graph;
}

void expect_whole_model(const Graph& graph) {
  const std::string text = write_checked(graph);
  const size_t main_at = text.find("func.func public @main(");
  ASSERT_NE(main_at, std::string::npos) << graph.name;
  const std::string signature = text.substr(main_at, text.find('\n', main_at) - main_at);
  const size_t args = graph.inputs().size() + graph.weights().size();
  EXPECT_TRUE(contains(signature, "%arg" + std::to_string(args - 1) + ": ")) << graph.name;
  EXPECT_FALSE(contains(signature, "%arg" + std::to_string(args) + ": ")) << graph.name;
  for (const GraphOutput& out : graph.outputs) {
    EXPECT_TRUE(contains(text, "jax.result_info = \"" + out.name + "\"")) << out.name;
  }
  EXPECT_TRUE(std::regex_search(text, std::regex(R"(\n    return %[^\n]*\n  \}\n\}\n$)"))) << graph.name;
}

TEST(StablehloWriterZoo, LlamaTinyIsWrittenWhole) {
  expect_whole_model(zoo_graph("llama/causal_lm/native", "llama_tiny"));
}

TEST(StablehloWriterZoo, Resnet18IsWrittenWhole) { expect_whole_model(zoo_graph("resnet/native", "resnet18")); }

}  // namespace
}  // namespace meshtest::frontends::stablehlo
