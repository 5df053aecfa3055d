// The StableHLO importer (frontends/stablehlo/stablehlo_import.h) on small
// programs written in the test: naming, constants in every dense form,
// inlining of calls and composites, control flow unrolled when it folds and
// refused when it does not, region classification (reduce, argmax, sort),
// checks and their evaluation, shardings and labels, and the `*.mlir`
// frontend that makes a file a case.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "core/error.h"
#include "core/safetensors.h"
#include "discovery/discovery.h"
#include "frontends/frontend_registry.h"
#include "frontends/stablehlo/mlir_parser.h"
#include "frontends/stablehlo/stablehlo_checks.h"
#include "frontends/stablehlo/stablehlo_import.h"
#include "frontends/stablehlo/stablehlo_literals.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest {
namespace {

namespace fs = std::filesystem;
using namespace frontends::stablehlo;

StablehloImport import_text(const std::string& text) { return import_stablehlo(parse_mlir(text, "t.mlir"), "t.mlir"); }

// The error importing `text` raises (empty when none).
std::string import_error(const std::string& text) {
  try {
    import_text(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::vector<OpKind> kinds(const Graph& g) {
  std::vector<OpKind> out;
  for (const meshtest::Op& op : g.ops) out.push_back(op.kind);
  return out;
}

bool has_op(const Graph& g, const char* name) {
  for (const meshtest::Op& op : g.ops) {
    if (op_name(op.kind) == name) return true;
  }
  return false;
}

TEST(StablehloImport, EntryArgumentsAndResultsAreNamedByPosition) {
  const StablehloImport r = import_text(R"(
module @m {
  func.func public @main(%arg0: tensor<4xf32> {jax.arg_info = "x"}, %arg1: tensor<4xf32>)
      -> (tensor<4xf32> {jax.result_info = "sum"}, tensor<4xf32>) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.multiply %0, %arg1 : tensor<4xf32>
    return %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
})");
  const Graph& g = r.graph;
  ASSERT_EQ(g.inputs().size(), 2u);
  EXPECT_EQ(g.inputs()[0]->name, "arg0");
  EXPECT_EQ(g.inputs()[1]->name, "arg1");
  ASSERT_EQ(g.outputs.size(), 2u);
  EXPECT_EQ(g.outputs[0].name, "out0");
  EXPECT_EQ(g.outputs[1].name, "out1");
  EXPECT_EQ(kinds(g), (std::vector<OpKind>{OpKind::Add, OpKind::Mul}));
  EXPECT_EQ(r.labels.at("arg0"), "x");
  EXPECT_EQ(r.labels.at("out0"), "sum");
  EXPECT_EQ(r.labels.count("arg1"), 0u);
  const std::vector<Tensor> out = runtime::run_reference(
      g, {{"arg0", Tensor::from_f32({4}, {1, 2, 3, 4})}, {"arg1", Tensor::from_f32({4}, {2, 2, 2, 2})}});
  EXPECT_EQ(out[1].to_f32_vector(), (std::vector<float>{6, 8, 10, 12}));
}

TEST(StablehloImport, TheOnlyPublicFunctionIsTheEntryWithoutMain) {
  const StablehloImport r = import_text(R"(
func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func public @forward(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @helper(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = call @helper(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
})");
  EXPECT_EQ(kinds(r.graph), (std::vector<OpKind>{OpKind::Neg, OpKind::Neg}));
}

TEST(StablehloImport, DenseConstantsInEveryForm) {
  const Shape s3{3};
  auto decode = [](const std::string& literal, const std::string& type, DType dtype, Shape shape) {
    const Module m = parse_mlir("func.func @main() -> " + type + " {\n  %c = stablehlo.constant " + literal +
                                    " : " + type + "\n  return %c : " + type + "\n}",
                                "t.mlir");
    const Attribute* value = m.functions[0].body.blocks[0].ops[0].attr("value");
    return decode_dense(*value, dtype, shape);
  };
  const Tensor hex = decode(R"(dense<"0x0000803F00000040000040C0">)", "tensor<3xf32>", DType::F32, s3);
  EXPECT_EQ(hex.to_f32_vector(), (std::vector<float>{1.0f, 2.0f, -3.0f}));
  const Tensor bools = decode(R"(dense<"0x010001">)", "tensor<3xi1>", DType::Bool, s3);
  EXPECT_EQ(bools.element_as_double(0) + bools.element_as_double(1) * 2 + bools.element_as_double(2) * 4, 5.0);
  const Tensor nested = decode("dense<[[1, -2], [3, 4]]>", "tensor<2x2xi8>", DType::I8, {2, 2});
  EXPECT_EQ(nested.element_as_double(1), -2.0);
  const Tensor splat = decode("dense<7>", "tensor<3xui16>", DType::U16, s3);
  EXPECT_EQ(splat.element_as_double(2), 7.0);
  const Tensor bits = decode("dense<0x7FC0>", "tensor<3xbf16>", DType::BF16, s3);
  EXPECT_TRUE(std::isnan(bits.element_as_double(0)));
  const Tensor special = decode("dense<[0x7F800000, -1.5, 0xFF800000]>", "tensor<3xf32>", DType::F32, s3);
  EXPECT_EQ(special.element_as_double(0), std::numeric_limits<double>::infinity());
  EXPECT_EQ(special.element_as_double(1), -1.5);
  EXPECT_EQ(special.element_as_double(2), -std::numeric_limits<double>::infinity());
  const Tensor wide = decode("dense<18446744073709551615>", "tensor<3xui64>", DType::U64, s3);
  EXPECT_EQ(static_cast<const uint64_t*>(wide.raw_data())[1], 18446744073709551615ull);
  EXPECT_THROW(element_dtype("complex<f32>"), Error);
}

TEST(StablehloImport, SplatF32ConstantsAreConstantOpsOthersWeights) {
  const StablehloImport r = import_text(R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<2xf32>
  %w = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %0 = stablehlo.multiply %x, %c : tensor<2xf32>
  %1 = stablehlo.add %0, %w : tensor<2xf32>
  return %1 : tensor<2xf32>
})");
  EXPECT_EQ(kinds(r.graph), (std::vector<OpKind>{OpKind::Constant, OpKind::Mul, OpKind::Add}));
  ASSERT_EQ(r.graph.weights().size(), 1u);
  EXPECT_EQ(r.graph.weights()[0]->data.to_f32_vector(), (std::vector<float>{1.0f, 3.0f}));
}

TEST(StablehloImport, ChloAndBoolArithmeticMapOntoMeshtestOps) {
  const StablehloImport r = import_text(R"(
func.func @main(%x: tensor<2x5xf32>, %p: tensor<2x5xi1>, %q: tensor<2x5xi1>)
    -> (tensor<2x5xf32>, tensor<2x5xi1>, tensor<2x5xi1>, tensor<2x3xf32>, tensor<2x3xi32>) {
  %0 = chlo.square %x : tensor<2x5xf32> -> tensor<2x5xf32>
  %1 = chlo.is_inf %x : tensor<2x5xf32> -> tensor<2x5xi1>
  %2 = stablehlo.maximum %p, %q : tensor<2x5xi1>
  %values, %indices = chlo.top_k(%x, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %0, %1, %2, %values, %indices : tensor<2x5xf32>, tensor<2x5xi1>, tensor<2x5xi1>, tensor<2x3xf32>, tensor<2x3xi32>
})");
  std::vector<std::string> names;
  for (const meshtest::Op& op : r.graph.ops) names.emplace_back(op_name(op.kind));
  EXPECT_EQ(names, (std::vector<std::string>{"mul", "abs", "compare", "or", "sort_permutation", "slice",
                                             "take_along_axis", "cast"}));
  EXPECT_EQ(r.graph.ops[0].inputs[0], r.graph.ops[0].inputs[1]);
  EXPECT_EQ(r.graph.ops[4].attrs.get_ints("directions"), (std::vector<int64_t>{1}));
}

TEST(StablehloImport, AnnotationsPassThroughAndShapeQueriesFold) {
  const StablehloImport r = import_text(R"(
func.func @main(%x: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<i32>) {
  %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{replicated}"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = stablehlo.broadcast %0, sizes = [2] : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %2 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<3x4xf32>) -> tensor<i32>
  return %1, %2 : tensor<2x3x4xf32>, tensor<i32>
})");
  ASSERT_EQ(r.graph.ops.size(), 1u);
  EXPECT_EQ(r.graph.ops[0].kind, OpKind::BroadcastInDim);
  EXPECT_EQ(r.graph.ops[0].attrs.get_ints("broadcast_dimensions"), (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(r.graph.weights().size(), 1u);
  EXPECT_EQ(r.graph.weights()[0]->data.element_as_double(0), 4.0);
}

TEST(StablehloImport, BatchNormInferenceIsBatchNormOrItsFormula) {
  const std::string text = R"(
func.func @main(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %o: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>)
    -> tensor<2x3xf32> {
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 0.0 : f32, feature_index = 0 : i64}
      : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
})";
  const StablehloImport r = import_text(text);
  const std::vector<Tensor> out = runtime::run_reference(r.graph, {{"arg0", Tensor::from_f32({2, 3}, {1, 2, 3, 4, 5, 6})},
                                                                   {"arg1", Tensor::from_f32({2}, {2, 1})},
                                                                   {"arg2", Tensor::from_f32({2}, {0, 10})},
                                                                   {"arg3", Tensor::from_f32({2}, {1, 4})},
                                                                   {"arg4", Tensor::from_f32({2}, {4, 1})}});
  // row 0: (x - 1) / 2 * 2 + 0; row 1: (x - 4) / 1 * 1 + 10
  EXPECT_EQ(out[0].to_f32_vector(), (std::vector<float>{0, 1, 2, 10, 11, 12}));
}

TEST(StablehloImport, KnownCompositesBecomeMeshtestOpsOthersAreInlined) {
  const StablehloImport r = import_text(R"(
func.func private @gelu_impl(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @other_impl(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @norm_impl(%a: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "tenstorrent.gelu" %x {composite_attributes = {approximate = "tanh"}, decomposition = @gelu_impl} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "acme.thing" %0 {decomposition = @other_impl} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.composite "tenstorrent.rms_norm" %1, %w {composite_attributes = {epsilon = 1.0e-06 : f32}, decomposition = @norm_impl} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
})");
  ASSERT_EQ(kinds(r.graph), (std::vector<OpKind>{OpKind::Gelu, OpKind::Exp, OpKind::RmsNorm}));
  EXPECT_EQ(r.graph.ops[0].attrs.get_string("approximate"), "tanh");
  EXPECT_NEAR(r.graph.ops[2].attrs.get_float("eps"), 1e-6, 1e-12);
}

constexpr const char* kCountedLoop = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %0:2 = stablehlo.while(%i = %c0, %acc = %x) : tensor<i32>, tensor<4xf32>
   cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %next = stablehlo.add %i, %c1 : tensor<i32>
    %sum = stablehlo.add %acc, %one : tensor<4xf32>
    stablehlo.return %next, %sum : tensor<i32>, tensor<4xf32>
  }
  return %0#1 : tensor<4xf32>
})";

TEST(StablehloImport, AWhileWithAConstantTripCountIsUnrolled) {
  const StablehloImport r = import_text(kCountedLoop);
  EXPECT_EQ(kinds(r.graph), (std::vector<OpKind>{OpKind::Constant, OpKind::Add, OpKind::Add, OpKind::Add}));
  const std::vector<Tensor> out = runtime::run_reference(r.graph, {{"arg0", Tensor::from_f32({4}, {0, 1, 2, 3})}});
  EXPECT_EQ(out[0].to_f32_vector(), (std::vector<float>{3, 4, 5, 6}));
}

TEST(StablehloImport, AWhileWithADataDependentTripCountIsRefusedWithItsLocation) {
  const std::string error = import_error(R"(
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.while(%v = %x) : tensor<f32>
   cond {
    %lim = stablehlo.constant dense<10.0> : tensor<f32>
    %p = stablehlo.compare LT, %v, %lim, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %d = stablehlo.add %v, %v : tensor<f32>
    stablehlo.return %d : tensor<f32>
  }
  return %0 : tensor<f32>
})");
  EXPECT_NE(error.find("t.mlir:3:3: unsupported stablehlo.while: while with a data-dependent trip count"),
            std::string::npos)
      << error;
}

TEST(StablehloImport, UnmappedOpsAndTypesNameTheOpAndTheReason) {
  EXPECT_NE(import_error(R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @foo(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
})").find("unsupported stablehlo.custom_call: custom_call target @foo"),
            std::string::npos);
  EXPECT_NE(import_error(R"(
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
})").find("dynamic shape"),
            std::string::npos);
  EXPECT_NE(import_error(R"(
func.func @main(%x: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  return %x : tensor<2xcomplex<f32>>
})").find("complex"),
            std::string::npos);
}

TEST(StablehloImport, ReduceBodiesAreClassified) {
  const StablehloImport r = import_text(R"(
func.func @main(%x: tensor<3x5xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
  %iota = stablehlo.iota dim = 1 : tensor<3x5xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.reduce(%x init: %ninf), (%iota init: %c0) across dimensions = [1] : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ia: tensor<i32>, %ib: tensor<i32>) {
    %2 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.or %2, %3 : tensor<i1>
    %5 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = stablehlo.compare LT, %ia, %ib, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.and %5, %6 : tensor<i1>
    %8 = stablehlo.or %4, %7 : tensor<i1>
    %9 = stablehlo.select %4, %a, %b : tensor<i1>, tensor<f32>
    %10 = stablehlo.select %8, %ia, %ib : tensor<i1>, tensor<i32>
    stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
  }
  return %0, %1#1 : tensor<3xf32>, tensor<3xi32>
})");
  const Graph& g = r.graph;
  const meshtest::Op* sum = nullptr;
  const meshtest::Op* arg = nullptr;
  for (const meshtest::Op& op : g.ops) {
    if (op_name(op.kind) == "reduce_sum" && sum == nullptr) sum = &op;  // add from +0 (import patterns)
    if (op_name(op.kind) == "reduce_arg") arg = &op;
  }
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->attrs.get_ints("axes"), std::vector<int64_t>{1});
  ASSERT_NE(arg, nullptr);
  EXPECT_EQ(arg->attrs.get_string("direction"), "max");
  EXPECT_EQ(arg->attrs.get_int("dimension"), 1);
}

TEST(StablehloImport, SortComparatorsBecomeSortPermutations) {
  const StablehloImport r = import_text(R"(
func.func @main(%k: tensor<6xi32>, %v: tensor<6xf32>) -> (tensor<6xi32>, tensor<6xf32>) {
  %0:2 = "stablehlo.sort"(%k, %v) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a0: tensor<i32>, %b0: tensor<i32>, %a1: tensor<f32>, %b1: tensor<f32>):
    %1 = stablehlo.compare GT, %a0, %b0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.compare EQ, %a0, %b0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.compare LT, %a1, %b1, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.and %2, %3 : tensor<i1>
    %5 = stablehlo.or %1, %4 : tensor<i1>
    stablehlo.return %5 : tensor<i1>
  }) : (tensor<6xi32>, tensor<6xf32>) -> (tensor<6xi32>, tensor<6xf32>)
  return %0#0, %0#1 : tensor<6xi32>, tensor<6xf32>
})");
  ASSERT_TRUE(has_op(r.graph, "sort_permutation"));
  const meshtest::Op& perm = r.graph.ops[0];
  EXPECT_EQ(perm.inputs.size(), 2u);
  EXPECT_EQ(perm.attrs.get_ints("directions"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(perm.attrs.get_int("total_order"), 1);
  EXPECT_EQ(perm.attrs.get_int("is_stable"), 1);
}

constexpr const char* kChecked = R"(
module @jit_main {
  func.func public @main() -> (tensor<3xf32> {jax.result_info = ""}) {
    %0 = call @inputs() : () -> tensor<3xf32>
    %1 = call @expected() : () -> tensor<3xf32>
    %2 = stablehlo.abs %0 : tensor<3xf32>
    stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<3xf32>, tensor<3xf32>) -> ()
    return %2 : tensor<3xf32>
  }
  func.func private @inputs() -> tensor<3xf32> {
    %cst = stablehlo.constant dense<[-1.0, 2.0, -3.0]> : tensor<3xf32>
    return %cst : tensor<3xf32>
  }
  func.func private @expected() -> tensor<3xf32> {
    %cst = stablehlo.constant dense<EXPECTED> : tensor<3xf32>
    return %cst : tensor<3xf32>
  }
}
)";

std::string with_expected(const std::string& values) {
  std::string text = kChecked;
  text.replace(text.find("EXPECTED"), 8, values);
  return text;
}

TEST(StablehloImport, ChecksAreCarriedAndEvaluatedOnTheOutputs) {
  const StablehloImport r = import_text(with_expected("[1.0, 2.0, 3.0]"));
  ASSERT_EQ(r.checks.size(), 1u);
  EXPECT_EQ(r.checks[0].kind, ExpectCheck::Kind::Close);
  EXPECT_EQ(r.checks[0].output, "out0");
  EXPECT_TRUE(r.graph.inputs().empty());
  const std::vector<Tensor> out = runtime::run_reference(r.graph, {});
  const std::vector<CheckOutcome> ok = evaluate_checks(r.checks, outputs_by_name(r.graph, out));
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_TRUE(ok[0].passed) << ok[0].message;

  const StablehloImport wrong = import_text(with_expected("[1.0, 2.5, 3.0]"));
  const std::vector<CheckOutcome> bad =
      evaluate_checks(wrong.checks, outputs_by_name(wrong.graph, runtime::run_reference(wrong.graph, {})));
  EXPECT_FALSE(bad[0].passed);
  EXPECT_NE(bad[0].message.find("first mismatch at element 1"), std::string::npos) << bad[0].message;
}

TEST(StablehloChecks, CloseMeansWithinThreeUlpsOfTheExpectedType) {
  const float one = 1.0f;
  const float three_up = std::nextafter(std::nextafter(std::nextafter(one, 2.0f), 2.0f), 2.0f);
  const float four_up = std::nextafter(three_up, 2.0f);
  const Tensor want = Tensor::from_f32({1}, {one});
  EXPECT_TRUE(check_tensor(ExpectCheck::Kind::Close, Tensor::from_f32({1}, {three_up}), want, "x").passed);
  const CheckOutcome far = check_tensor(ExpectCheck::Kind::Close, Tensor::from_f32({1}, {four_up}), want, "x");
  EXPECT_FALSE(far.passed);
  EXPECT_NE(far.message.find("max 4 ULP"), std::string::npos) << far.message;
  // Across zero: -0 and +0 are one apart from the smallest denormals.
  const float tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_TRUE(check_tensor(ExpectCheck::Kind::Close, Tensor::from_f32({1}, {-tiny}), Tensor::from_f32({1}, {tiny}),
                           "x").passed);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(check_tensor(ExpectCheck::Kind::Close, Tensor::from_f32({2}, {nan, inf}),
                           Tensor::from_f32({2}, {-nan, inf}), "x").passed);
  EXPECT_FALSE(check_tensor(ExpectCheck::Kind::Close, Tensor::from_f32({1}, {inf}),
                            Tensor::from_f32({1}, {std::numeric_limits<float>::max()}), "x").passed);
  // f64 codes of opposite extremes are further apart than INT64_MAX: still a clean failure.
  Tensor lo(DType::F64, {1});
  Tensor hi(DType::F64, {1});
  static_cast<double*>(lo.raw_data())[0] = -std::numeric_limits<double>::max();
  static_cast<double*>(hi.raw_data())[0] = std::numeric_limits<double>::max();
  EXPECT_FALSE(check_tensor(ExpectCheck::Kind::Close, lo, hi, "x").passed);
  // bf16 expectations count bf16 ULPs: 1 + 2^-7 is one bf16 step above 1.
  const Tensor want_bf16 = Tensor::from_f32({1}, {1.0f}).to(DType::BF16);
  EXPECT_TRUE(check_tensor(ExpectCheck::Kind::Close, Tensor::from_f32({1}, {1.0f + 3.0f / 128}), want_bf16, "x").passed);
  EXPECT_FALSE(check_tensor(ExpectCheck::Kind::Close, Tensor::from_f32({1}, {1.0f + 4.0f / 128}), want_bf16, "x").passed);
}

TEST(StablehloChecks, EqualAndAlmostEqual) {
  const Tensor want = Tensor::from_i64({3}, {1, -2, 3});
  EXPECT_TRUE(check_tensor(ExpectCheck::Kind::Equal, Tensor::from_i64({3}, {1, -2, 3}), want, "x").passed);
  EXPECT_FALSE(check_tensor(ExpectCheck::Kind::Equal, Tensor::from_i64({3}, {1, -2, 4}), want, "x").passed);
  const Tensor f = Tensor::from_f32({2}, {1.0f, 2.0f});
  EXPECT_TRUE(check_tensor(ExpectCheck::Kind::AlmostEq, Tensor::from_f32({2}, {1.0009f, 2.0f}), f, "x").passed);
  EXPECT_FALSE(check_tensor(ExpectCheck::Kind::AlmostEq, Tensor::from_f32({2}, {1.0011f, 2.0f}), f, "x").passed);
  EXPECT_FALSE(check_tensor(ExpectCheck::Kind::Equal, Tensor::from_f32({3}, {1, 2, 3}), f, "x").passed);
}

TEST(StablehloChecks, FrameworkOutputsAreHeldToAScaleAwareAllclose) {
  const Tensor want = Tensor::from_f32({3}, {100.0f, 1.0f, 0.0f});
  // atol = 1e-4 * max|want| = 0.01; rtol 1e-4.
  EXPECT_TRUE(check_framework_output(Tensor::from_f32({3}, {100.015f, 1.005f, -0.009f}), want, "x").passed);
  const CheckOutcome off = check_framework_output(Tensor::from_f32({3}, {100.0f, 1.0f, 0.02f}), want, "x");
  EXPECT_FALSE(off.passed);
  EXPECT_NE(off.message.find("first mismatch at element 2"), std::string::npos) << off.message;
  EXPECT_FALSE(check_framework_output(Tensor::from_i64({1}, {3}), Tensor::from_i64({1}, {4}), "x").passed);
}

TEST(StablehloImport, ArgumentShardingsBecomeAShardSpec) {
  const StablehloImport r = import_text(R"(
func.func @main(%x: tensor<4x16xf32> {mhlo.sharding = "{devices=[1,8]<=[8]}"},
                %w: tensor<16xf32> {mhlo.sharding = "{replicated}"}) -> tensor<4x16xf32> {
  %0 = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.add %x, %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
})");
  EXPECT_EQ(r.mesh.shape, (std::vector<int64_t>{8}));
  ASSERT_EQ(r.shard_spec.count("arg0"), 1u);
  EXPECT_EQ(r.shard_spec.at("arg0"), (sdk::PartitionSpec{{}, {"axis0"}}));
  EXPECT_EQ(r.shard_spec.count("arg1"), 0u);
}

// What the writer gives a 4x2 mesh: a split over the second axis takes the
// axes out of mesh order (a transposed iota), one over the first or over
// both keeps them in order; all three must land on the one 4x2 mesh.
TEST(StablehloImport, TransposedIotaShardingsGiveTheWritersMesh) {
  const StablehloImport r = import_text(R"(
func.func @main(%a: tensor<8x16xf32> {mhlo.sharding = "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}"},
                %b: tensor<8x16xf32> {mhlo.sharding = "{devices=[4,1,2]<=[8] last_tile_dim_replicate}"},
                %c: tensor<8x16xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> tensor<8x16xf32> {
  %0 = stablehlo.add %a, %b : tensor<8x16xf32>
  %1 = stablehlo.add %0, %c : tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
})");
  EXPECT_EQ(r.mesh.shape, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(r.shard_spec.at("arg0"), (sdk::PartitionSpec{{"axis1"}, {}}));
  EXPECT_EQ(r.shard_spec.at("arg1"), (sdk::PartitionSpec{{"axis0"}, {}}));
  EXPECT_EQ(r.shard_spec.at("arg2"), (sdk::PartitionSpec{{"axis0", "axis1"}, {}}));
  // A tile the mesh's axes cannot make (3 of a 4x2 mesh): no spec at all.
  const StablehloImport odd = import_text(R"(
func.func @main(%a: tensor<8x16xf32> {mhlo.sharding = "{devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}"},
                %b: tensor<9x16xf32> {mhlo.sharding = "{devices=[3,1]<=[3]}"}) -> tensor<8x16xf32> {
  return %a : tensor<8x16xf32>
})");
  EXPECT_TRUE(odd.shard_spec.empty());
}

TEST(StablehloImport, ArgumentsMarkedAsWeightsAreListed) {
  const StablehloImport r = import_text(R"(
func.func @main(%x: tensor<4xf32> {meshtest.name = "x"},
                %w: tensor<4xf32> {meshtest.kind = "weight", meshtest.name = "w"},
                %v: tensor<4xf32> {meshtest.kind = "input"}) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %w : tensor<4xf32>
  %1 = stablehlo.add %0, %v : tensor<4xf32>
  return %1 : tensor<4xf32>
})");
  EXPECT_EQ(r.weight_arguments, (std::set<std::string>{"arg1"}));
  EXPECT_EQ(r.labels.at("arg1"), "w");
  EXPECT_EQ(r.graph.inputs().size(), 3u);  // still inputs: the consumer decides
}

TEST(StablehloImport, ShardyShardingsUseTheModulesMesh) {
  const StablehloImport r = import_text(R"(module {
sdy.mesh @mesh = <["batch"=2, "model"=4]>
func.func @main(%x: tensor<4x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"batch"}, {"model"}]>},
                %w: tensor<16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> tensor<4x16xf32> {
  %0 = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.add %x, %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
})");
  EXPECT_EQ(r.mesh.shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(r.mesh.axis_names, (std::vector<std::string>{"batch", "model"}));
  ASSERT_EQ(r.shard_spec.count("arg0"), 1u);
  EXPECT_EQ(r.shard_spec.at("arg0"), (sdk::PartitionSpec{{"batch"}, {"model"}}));
  EXPECT_EQ(r.shard_spec.at("arg1"), (sdk::PartitionSpec{{}}));
}

TEST(StablehloImport, ShardyFormsMeshtestCannotExpressGiveNoSpec) {
  // An open dimension (`?`) leaves the split to the partitioner: no spec.
  const StablehloImport r = import_text(R"(module {
sdy.mesh @mesh = <["x"=2]>
func.func @main(%x: tensor<4x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}, {}]>}) -> tensor<4x16xf32> {
  return %x : tensor<4x16xf32>
}
})");
  EXPECT_TRUE(r.shard_spec.empty());
  EXPECT_TRUE(r.mesh.shape.empty());
}

// ---- the *.mlir frontend ----

class StablehloFrontend : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("meshtest-stablehlo-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::shared_ptr<sdk::ModelLoader> load(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    const frontends::Frontend* f = frontends::builtin_frontends().find(name);
    EXPECT_NE(f, nullptr);
    return f->import((dir_ / name).string());
  }
  fs::path dir_;
};

TEST_F(StablehloFrontend, AFileIsAStablehloCaseWhoseReferenceIsCheckedFirst) {
  const auto good = load("abs.mlir", with_expected("[1.0, 2.0, 3.0]"));
  EXPECT_EQ(good->info("").framework, "stablehlo");
  EXPECT_TRUE(good->variants().empty());
  EXPECT_NO_THROW(good->load_inputs("", {}));

  const auto bad = load("bad.mlir", with_expected("[1.0, 2.5, 3.0]"));
  try {
    bad->load_inputs("", {});
    FAIL() << "a reference that disagrees with the expected values must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the CPU reference disagrees"), std::string::npos) << e.what();
  }
}

TEST_F(StablehloFrontend, InputsAndExpectedOutputsComeFromTheTensorFilesBeside) {
  const std::string text = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %x : tensor<2xf32>
  return %0 : tensor<2xf32>
})";
  write_safetensors((dir_ / "neg.safetensors").string(), {{"arg0", Tensor::from_f32({2}, {1.5f, -2.0f})}});
  write_safetensors((dir_ / "neg.expected.safetensors").string(), {{"out0", Tensor::from_f32({2}, {-1.5f, 2.0f})}});
  const auto loader = load("neg.mlir", text);
  const sdk::Inputs in = loader->load_inputs("", {});
  EXPECT_EQ(in.at("arg0").to_f32_vector(), (std::vector<float>{1.5f, -2.0f}));

  write_safetensors((dir_ / "neg2.expected.safetensors").string(), {{"out0", Tensor::from_f32({2}, {1.5f, 2.0f})}});
  fs::copy_file(dir_ / "neg.safetensors", dir_ / "neg2.safetensors");
  EXPECT_THROW(load("neg2.mlir", text)->load_inputs("", {}), Error);

  // Expected outputs without the inputs they came from cannot be checked.
  fs::copy_file(dir_ / "neg.expected.safetensors", dir_ / "neg3.expected.safetensors");
  try {
    load("neg3.mlir", text)->load_inputs("", {});
    FAIL() << "expected outputs with random inputs must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("need the inputs they were computed from"), std::string::npos) << e.what();
  }
}

// What `meshtest export` writes: weights in the tensor file under their
// meshtest names, which the arguments carry as `meshtest.name`.
TEST_F(StablehloFrontend, ArgumentsAreAlsoFoundByTheirLabel) {
  const std::string text = R"(
func.func @main(%x: tensor<2xf32> {meshtest.name = "image"}, %w: tensor<2xf32> {meshtest.name = "fc.weight"}) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %w : tensor<2xf32>
  return %0 : tensor<2xf32>
})";
  write_safetensors((dir_ / "mul.safetensors").string(), {{"fc.weight", Tensor::from_f32({2}, {0.25f, -4.0f})}});
  const sdk::Inputs in = load("mul.mlir", text)->load_inputs("", {});
  EXPECT_EQ(in.at("arg1").to_f32_vector(), (std::vector<float>{0.25f, -4.0f}));
  EXPECT_EQ(in.at("arg0").shape(), (Shape{2}));  // not in the file: random by type
}

TEST_F(StablehloFrontend, DiscoveryMakesEachFileALoaderNamedByItsPath) {
  fs::create_directories(dir_ / "ops");
  std::ofstream(dir_ / "ops" / "abs.mlir") << with_expected("[1.0, 2.0, 3.0]");
  std::ofstream(dir_ / "ops" / "neg.mlir") << with_expected("[1.0, 2.0, 3.0]");
  const discovery::Discovery d = discovery::discover({dir_.string()});
  ASSERT_TRUE(d.failures.empty()) << d.failures[0].error;
  ASSERT_EQ(d.loaders.size(), 2u);
  EXPECT_EQ(d.loaders[0].dir, "ops/abs");
  EXPECT_EQ(d.loaders[1].dir, "ops/neg");
}

TEST_F(StablehloFrontend, AFileThatDoesNotImportFailsToLoad) {
  EXPECT_THROW(load("fft.mlir", R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @unknown(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
})"),
               ParseError);
}

}  // namespace
}  // namespace meshtest
