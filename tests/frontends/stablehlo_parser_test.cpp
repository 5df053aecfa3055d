// The StableHLO reader (frontends/stablehlo/mlir_parser.h): every program of
// MESHTEST_STABLEHLO_TESTDATA (CMake) parses with a consistent structure (and the
// parse times are printed); pretty and generic spellings of an op give the
// same syntax tree; malformed input is a ParseError naming line and column.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "frontends/stablehlo/mlir_parser.h"
#include "tests/frontends/stablehlo_ast_canonical.h"

namespace meshtest::frontends::stablehlo {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---- structure checks ----

// Every op (regions included) has one type per operand and per result;
// returns the number of ops checked.
size_t check_ops(const std::vector<Op>& ops, const std::string& where) {
  size_t count = 0;
  for (const Op& op : ops) {
    ++count;
    EXPECT_EQ(op.results.size(), op.result_types.size()) << where << ": " << op.name << " at line " << op.loc.line;
    EXPECT_EQ(op.operands.size(), op.operand_types.size()) << where << ": " << op.name << " at line " << op.loc.line;
    EXPECT_GT(op.loc.line, 0) << where << ": " << op.name;
    for (const Region& r : op.regions)
      for (const Block& b : r.blocks) count += check_ops(b.ops, where);
  }
  return count;
}

size_t check_module(const Module& m, const std::string& where) {
  EXPECT_FALSE(m.functions.empty()) << where;
  size_t ops = 0;
  for (const Function& f : m.functions) {
    if (f.body.blocks.empty()) continue;
    EXPECT_EQ(f.body.blocks.size(), 1u) << where << ": @" << f.name;
    const Block& entry = f.body.blocks.front();
    EXPECT_EQ(entry.arguments.size(), f.arguments.size()) << where << ": @" << f.name;
    ops += check_ops(entry.ops, where + " @" + f.name);
    // The function ends in a return of its result types.
    if (!entry.ops.empty()) {
      const Op& ret = entry.ops.back();
      EXPECT_EQ(ret.name, "func.return") << where << ": @" << f.name;
      EXPECT_EQ(ret.operands.size(), f.results.size()) << where << ": @" << f.name;
    }
  }
  return ops;
}

bool has_function(const Module& m, const std::string& name) {
  for (const Function& f : m.functions)
    if (f.name == name) return true;
  return false;
}

TEST(StablehloParserCorpus, EveryTestDataFileParses) {
  const fs::path root = MESHTEST_STABLEHLO_TESTDATA;
  if (!fs::is_directory(root)) GTEST_SKIP() << "no StableHLO test data at " << root.string();
  std::vector<fs::path> files;
  for (const char* sub : {"", "dynamic", "quantized"}) {
    const fs::path dir = root / sub;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".mlir") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 2000u);

  using Clock = std::chrono::steady_clock;
  double total_seconds = 0;
  double largest_seconds = 0;
  size_t largest_bytes = 0;
  size_t total_bytes = 0;
  size_t ops = 0;
  size_t modules = 0;
  fs::path largest;
  std::vector<std::string> failures;
  for (const fs::path& file : files) {
    const std::string text = read_text(file);
    const auto start = Clock::now();
    std::vector<Module> parsed;
    try {
      parsed = parse_mlir_split(text, file.string());
    } catch (const ParseError& e) {
      failures.push_back(e.what());
      continue;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    total_seconds += seconds;
    total_bytes += text.size();
    if (text.size() > largest_bytes) {
      largest_bytes = text.size();
      largest_seconds = seconds;
      largest = file;
    }
    modules += parsed.size();
    // A one-module file is a JAX export: @main is its entry. Split files
    // (`// -----`) hold one test function per module instead.
    if (parsed.size() == 1) {
      EXPECT_TRUE(has_function(parsed[0], "main")) << file.string();
    }
    for (const Module& m : parsed) ops += check_module(m, file.filename().string());
  }
  for (size_t i = 0; i < failures.size() && i < 20; ++i) ADD_FAILURE() << failures[i];
  EXPECT_EQ(failures.size(), 0u);
  std::printf("parsed %zu files (%zu modules, %zu ops, %.1f MB) in %.3f s; largest %s (%.1f MB) in %.3f s\n",
              files.size(), modules, ops, total_bytes / 1e6, total_seconds, largest.filename().c_str(),
              largest_bytes / 1e6, largest_seconds);
}

// ---- pretty and generic spellings ----

std::string canon(const std::string& text) { return testing::canonical(parse_mlir(text, "test.mlir")); }

// A module whose @main takes `args` and returns %0 of `result`, with `body` in between.
std::string program(const std::string& args, const std::string& result, const std::string& body) {
  return "func.func @main(" + args + ") -> " + result + " {\n" + body + "\n  return %0 : " + result + "\n}\n";
}

void expect_same(const std::string& args, const std::string& result, const std::string& pretty,
                 const std::string& generic) {
  const std::string a = canon(program(args, result, pretty));
  const std::string b = canon(program(args, result, generic));
  EXPECT_EQ(a, b) << "pretty:  " << pretty << "\ngeneric: " << generic;
}

TEST(StablehloParserForms, Compare) {
  expect_same("%a: tensor<4xf32>, %b: tensor<4xf32>", "tensor<4xi1>",
              "%0 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
              "%0 = \"stablehlo.compare\"(%a, %b) {compare_type = #stablehlo<comparison_type FLOAT>, "
              "comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<4xf32>, tensor<4xf32>) -> "
              "tensor<4xi1>");
  // Without the optional compare type.
  expect_same("%a: tensor<4xi32>, %b: tensor<4xi32>", "tensor<4xi1>",
              "%0 = stablehlo.compare EQ, %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>",
              "%0 = \"stablehlo.compare\"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction EQ>}> : "
              "(tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>");
}

TEST(StablehloParserForms, ElementwiseOneTypeAndFunctionalType) {
  const std::string generic = "%0 = \"stablehlo.add\"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>";
  expect_same("%a: tensor<4xf32>, %b: tensor<4xf32>", "tensor<4xf32>", "%0 = stablehlo.add %a, %b : tensor<4xf32>",
              generic);
  expect_same("%a: tensor<4xf32>, %b: tensor<4xf32>", "tensor<4xf32>",
              "%0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>", generic);
  expect_same("%p: tensor<4xi1>, %a: tensor<4xf32>", "tensor<4xf32>",
              "%0 = stablehlo.select %p, %a, %a : tensor<4xi1>, tensor<4xf32>",
              "%0 = \"stablehlo.select\"(%p, %a, %a) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>");
  expect_same("%a: tensor<4xf32>", "tensor<4xcomplex<f32>>", "%0 = stablehlo.complex %a, %a : tensor<4xcomplex<f32>>",
              "%0 = \"stablehlo.complex\"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>");
}

TEST(StablehloParserForms, DotGeneral) {
  const std::string args = "%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>";
  expect_same(args, "tensor<2x3x5xf32>",
              "%0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], "
              "precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>",
              "%0 = \"stablehlo.dot_general\"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions "
              "= [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = "
              "[1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : "
              "(tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>");
  // Empty batching dimensions are omitted by both printers.
  expect_same(
      "%a: tensor<3x4xf32>, %b: tensor<4x5xf32>", "tensor<3x5xf32>",
      "%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> "
      "tensor<3x5xf32>",
      "%0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions "
      "= [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>");
}

TEST(StablehloParserForms, DotDimensionNumbersHaveEveryField) {
  const Module m = parse_mlir(program("%a: tensor<3x4xf32>, %b: tensor<4x5xf32>", "tensor<3x5xf32>",
                                      "%0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : "
                                      "(tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>"),
                              "t.mlir");
  const Attribute* dims = m.functions[0].body.blocks[0].ops[0].attr("dot_dimension_numbers");
  ASSERT_NE(dims, nullptr);
  EXPECT_EQ(dims->kind, Attribute::Kind::Struct);
  EXPECT_EQ(dims->dialect, "stablehlo.dot");
  ASSERT_EQ(dims->fields.size(), 4u);
  EXPECT_EQ(dims->fields[0].first, "lhs_batching_dimensions");
  EXPECT_TRUE(dims->field("lhs_batching_dimensions")->elements.empty());
  ASSERT_EQ(dims->field("lhs_contracting_dimensions")->elements.size(), 1u);
  EXPECT_EQ(dims->field("lhs_contracting_dimensions")->elements[0]->int_value, 1);
}

TEST(StablehloParserForms, ReduceApplies) {
  expect_same("%a: tensor<4x8xf32>, %c: tensor<f32>", "tensor<4xf32>",
              "%0 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [1] : "
              "(tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>",
              "%0 = \"stablehlo.reduce\"(%a, %c) <{dimensions = array<i64: 1>}> ({\n"
              "^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
              "  %1 = \"stablehlo.add\"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>\n"
              "  \"stablehlo.return\"(%1) : (tensor<f32>) -> ()\n"
              "}) : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>");
}

TEST(StablehloParserForms, ReduceRegionPairsArguments) {
  // The reducer's pairs are (element, accumulator) per input: the block takes
  // every pair's first argument, then every pair's second.
  const std::string args = "%a: tensor<8xf32>, %b: tensor<8xi32>, %c: tensor<f32>, %d: tensor<i32>";
  const std::string types = "(tensor<8xf32>, tensor<8xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)";
  const std::string pretty = "%0:2 = stablehlo.reduce(%a init: %c), (%b init: %d) across dimensions = [0] : " + types +
                             "\n reducer(%e: tensor<f32>, %g: tensor<f32>) (%f: tensor<i32>, %h: tensor<i32>)  {\n"
                             "  %m = stablehlo.maximum %e, %g : tensor<f32>\n"
                             "  %n = stablehlo.minimum %f, %h : tensor<i32>\n"
                             "  stablehlo.return %m, %n : tensor<f32>, tensor<i32>\n}";
  const std::string generic =
      "%0:2 = \"stablehlo.reduce\"(%a, %b, %c, %d) <{dimensions = array<i64: 0>}> ({\n"
      "^bb0(%e: tensor<f32>, %f: tensor<i32>, %g: tensor<f32>, %h: tensor<i32>):\n"
      "  %m = stablehlo.maximum %e, %g : tensor<f32>\n"
      "  %n = stablehlo.minimum %f, %h : tensor<i32>\n"
      "  stablehlo.return %m, %n : tensor<f32>, tensor<i32>\n}) : " +
      types;
  const auto wrap = [&](const std::string& body) {
    return "func.func @main(" + args + ") -> (tensor<f32>, tensor<i32>) {\n" + body +
           "\n  return %0#0, %0#1 : tensor<f32>, tensor<i32>\n}\n";
  };
  EXPECT_EQ(canon(wrap(pretty)), canon(wrap(generic)));
  const Module m = parse_mlir(wrap(pretty), "t.mlir");
  const Block& body = m.functions[0].body.blocks[0].ops[0].regions.at(0).blocks.at(0);
  ASSERT_EQ(body.arguments.size(), 4u);
  EXPECT_EQ(body.arguments[0].name, "%e");
  EXPECT_EQ(body.arguments[1].name, "%f");
  EXPECT_EQ(body.arguments[2].name, "%g");
  EXPECT_EQ(m.functions[0].body.blocks[0].ops[1].operands, (std::vector<std::string>{"%0#0", "%0#1"}));
}

TEST(StablehloParserForms, Convolution) {
  const std::string args = "%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>";
  const std::string types = "(tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32>";
  const std::string generic =
      "%0 = \"stablehlo.convolution\"(%x, %w) <{batch_group_count = 1 : i64, dimension_numbers = "
      "#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = "
      "array<i64: 1, 1>, padding = dense<[[1, 1], [0, 1]]> : tensor<2x2xi64>, precision_config = "
      "[#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 2>, "
      "window_reversal = array<i1: false, true>, window_strides = array<i64: 2, 2>}> : " +
      types;
  expect_same(args, "tensor<1x4x4x4xf32>",
              "%0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
              "{stride = [2, 2], pad = [[1, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 2], reverse = [false, "
              "true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = "
              "[#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : " +
                  types,
              generic);
  // The raw struct spelling of the dimension numbers.
  std::string raw = generic;
  raw.replace(raw.find("#stablehlo.conv<"),
              std::string("#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>").size(),
              "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = "
              "[1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, "
              "kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, "
              "output_spatial_dimensions = [1, 2]>");
  expect_same(args, "tensor<1x4x4x4xf32>", raw, generic);
}

TEST(StablehloParserForms, ConvolutionDimensionNumbersAreDecoded) {
  // NCHW x OIHW: spatial dims listed out of order map back by their number.
  const Module m = parse_mlir(
      program("%x: tensor<1x2x8x8xf32>, %w: tensor<4x2x3x3xf32>", "tensor<1x4x6x6xf32>",
              "%0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 1, 0]x[o, i, 0, 1]->[b, f, 0, 1], window = {} "
              "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x8x8xf32>, "
              "tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>"),
      "t.mlir");
  const Op& conv = m.functions[0].body.blocks[0].ops[0];
  const Attribute* dn = conv.attr("dimension_numbers");
  ASSERT_NE(dn, nullptr);
  EXPECT_EQ(dn->field("input_feature_dimension")->int_value, 1);
  EXPECT_EQ(dn->field("input_spatial_dimensions")->elements[0]->int_value, 3);
  EXPECT_EQ(dn->field("input_spatial_dimensions")->elements[1]->int_value, 2);
  EXPECT_EQ(dn->field("kernel_output_feature_dimension")->int_value, 0);
  EXPECT_EQ(conv.attr("window_strides"), nullptr);
}

TEST(StablehloParserForms, BroadcastTransposeIotaSlicePad) {
  expect_same("%a: tensor<3xf32>", "tensor<2x3xf32>",
              "%0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>",
              "%0 = \"stablehlo.broadcast_in_dim\"(%a) <{broadcast_dimensions = array<i64: 1>}> : (tensor<3xf32>) -> "
              "tensor<2x3xf32>");
  expect_same("%a: tensor<2x3xf32>", "tensor<3x2xf32>",
              "%0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
              "%0 = \"stablehlo.transpose\"(%a) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> "
              "tensor<3x2xf32>");
  expect_same("%a: tensor<4x6xf32>", "tensor<2x2xf32>",
              "%0 = stablehlo.slice %a [0:2, 1:5:2] : (tensor<4x6xf32>) -> tensor<2x2xf32>",
              "%0 = \"stablehlo.slice\"(%a) <{limit_indices = array<i64: 2, 5>, start_indices = array<i64: 0, 1>, "
              "strides = array<i64: 1, 2>}> : (tensor<4x6xf32>) -> tensor<2x2xf32>");
  expect_same("", "tensor<4xi32>", "%0 = stablehlo.iota dim = 0 : tensor<4xi32>",
              "%0 = \"stablehlo.iota\"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>");
  expect_same("%a: tensor<4xf32>, %p: tensor<f32>", "tensor<7xf32>",
              "%0 = stablehlo.pad %a, %p, low = [1], high = [-1], interior = [1] : (tensor<4xf32>, tensor<f32>) -> "
              "tensor<7xf32>",
              "%0 = \"stablehlo.pad\"(%a, %p) <{edge_padding_high = array<i64: -1>, edge_padding_low = array<i64: 1>, "
              "interior_padding = array<i64: 1>}> : (tensor<4xf32>, tensor<f32>) -> tensor<7xf32>");
  expect_same("%a: tensor<4xi32>", "tensor<i32>",
              "%0 = stablehlo.get_dimension_size %a, dim = 0 : (tensor<4xi32>) -> tensor<i32>",
              "%0 = \"stablehlo.get_dimension_size\"(%a) <{dimension = 0 : i64}> : (tensor<4xi32>) -> tensor<i32>");
}

TEST(StablehloParserForms, ConstantSpellings) {
  const std::string generic =
      "%0 = \"stablehlo.constant\"() <{value = dense<1.500000e+00> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>";
  expect_same("", "tensor<2x2xf32>", "%0 = stablehlo.constant dense<1.500000e+00> : tensor<2x2xf32>", generic);
  // A list whose elements are all equal is the same splat.
  expect_same("", "tensor<2x2xf32>",
              "%0 = stablehlo.constant dense<[[1.500000e+00, 1.500000e+00], [1.500000e+00, 1.500000e+00]]> : "
              "tensor<2x2xf32>",
              generic);
  expect_same("", "tensor<2xi1>", "%0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>",
              "%0 = \"stablehlo.constant\"() <{value = dense<[true, false]> : tensor<2xi1>}> : () -> tensor<2xi1>");
}

TEST(StablehloParserForms, WhileRegionsTakeTheIterationArguments) {
  const std::string pretty =
      "%0 = stablehlo.while(%i = %a) : tensor<i32>\n"
      " cond {\n  %c = stablehlo.constant dense<10> : tensor<i32>\n"
      "  %lt = stablehlo.compare LT, %i, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "  stablehlo.return %lt : tensor<i1>\n"
      "} do {\n  %c = stablehlo.constant dense<1> : tensor<i32>\n"
      "  %n = stablehlo.add %i, %c : tensor<i32>\n  stablehlo.return %n : tensor<i32>\n}";
  const std::string generic =
      "%0 = \"stablehlo.while\"(%a) ({\n^bb0(%i: tensor<i32>):\n"
      "  %c = stablehlo.constant dense<10> : tensor<i32>\n"
      "  %lt = stablehlo.compare LT, %i, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
      "  stablehlo.return %lt : tensor<i1>\n"
      "}, {\n^bb0(%i: tensor<i32>):\n  %c = stablehlo.constant dense<1> : tensor<i32>\n"
      "  %n = stablehlo.add %i, %c : tensor<i32>\n  stablehlo.return %n : tensor<i32>\n"
      "}) : (tensor<i32>) -> tensor<i32>";
  expect_same("%a: tensor<i32>", "tensor<i32>", pretty, generic);
}

// Real JAX output: the four programs of models/jax/ in the pretty form
// `as_text()` prints and in the generic form JAX's MLIR bindings print
// (tests/frontends/stablehlo_data/, made by scripts/stablehlo_jax_models.py)
// read into the same tree.
TEST(StablehloParserForms, JaxProgramsPrettyAndGenericReadAlike) {
  const fs::path source(MESHTEST_SOURCE_DIR);
  int compared = 0;
  for (const char* name : {"mlp", "cnn", "transformer_encoder_block", "llama_block"}) {
    SCOPED_TRACE(name);
    const fs::path pretty = source / "models" / "jax" / (std::string(name) + ".mlir");
    const fs::path generic = source / "tests" / "frontends" / "stablehlo_data" / (std::string(name) + ".generic.mlir.txt");
    const Module from_pretty = parse_mlir(read_text(pretty), pretty.string());
    const Module from_generic = parse_mlir(read_text(generic), generic.string());
    ASSERT_FALSE(from_pretty.functions.empty());
    EXPECT_EQ(testing::canonical(from_pretty), testing::canonical(from_generic));
    ++compared;
  }
  EXPECT_EQ(compared, 4);
}

// ---- what the tree holds ----

TEST(StablehloParser, ModuleFunctionsAndAttributes) {
  const std::string text = R"(#loc1 = loc("x.py":3:4)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x?xbf16> {mhlo.sharding = "{replicated}"} loc("x")) -> (tensor<2x?xbf16> {jax.result_info = ""}) {
    %0:2 = call @pair(%arg0) : (tensor<2x?xbf16>) -> (tensor<2x?xbf16>, tensor<i32>) loc(#loc1)
    return %0#0 : tensor<2x?xbf16> loc(#loc1)
  } loc(#loc1)
  func.func private @pair(%a: tensor<2x?xbf16>) -> (tensor<2x?xbf16>, tensor<i32>) attributes {no_inline} {
    %c = stablehlo.constant dense<7> : tensor<i32>
    return %a, %c : tensor<2x?xbf16>, tensor<i32>
  }
}
#loc2 = loc(fused[#loc1, "y"]))";
  const Module m = parse_mlir(text, "t.mlir");
  EXPECT_EQ(m.name, "jit_f");
  ASSERT_EQ(m.attributes.size(), 2u);
  EXPECT_EQ(m.attributes[0].first, "mhlo.num_partitions");
  EXPECT_EQ(m.attributes[0].second->int_value, 1);
  EXPECT_EQ(m.attributes[0].second->type.element, "i32");
  ASSERT_EQ(m.functions.size(), 2u);
  const Function& main = m.functions[0];
  EXPECT_EQ(main.visibility, "public");
  EXPECT_EQ(main.loc.line, 3);
  ASSERT_EQ(main.arguments.size(), 1u);
  EXPECT_EQ(main.arguments[0].type.dims, (std::vector<int64_t>{2, Type::kDynamic}));
  EXPECT_EQ(main.arguments[0].type.element, "bf16");
  EXPECT_EQ(main.arguments[0].attributes[0].second->text, "{replicated}");
  EXPECT_EQ(main.results[0].attributes[0].first, "jax.result_info");
  const Op& call = main.body.blocks[0].ops[0];
  EXPECT_EQ(call.name, "func.call");
  EXPECT_EQ(call.results, (std::vector<std::string>{"%0#0", "%0#1"}));
  EXPECT_EQ(call.attr("callee")->text, "pair");
  EXPECT_EQ(call.loc.line, 4);
  EXPECT_EQ(call.loc.column, 5);
  EXPECT_EQ(main.body.blocks[0].ops[1].operands[0], "%0#0");
  EXPECT_EQ(m.functions[1].visibility, "private");
  EXPECT_EQ(m.functions[1].attributes[0].first, "no_inline");
  EXPECT_EQ(m.aliases.count("loc2"), 1u);
}

TEST(StablehloParser, TypesOfEveryKind) {
  const std::string text =
      R"(func.func @main(%a: tensor<?x3x!quant.uniform<i8:f32, 0.5:-1>>, %b: tuple<tensor<f32>, tensor<2xui16>>,
    %t: !stablehlo.token, %c: tensor<4xcomplex<f64>>, %d: tensor<f8E4M3FN>, %e: tensor<i1>) -> tensor<f32> {
  %0 = stablehlo.get_tuple_element %b[0] : (tuple<tensor<f32>, tensor<2xui16>>) -> tensor<f32>
  return %0 : tensor<f32>
})";
  const Module m = parse_mlir(text, "t.mlir");
  const auto& args = m.functions[0].arguments;
  EXPECT_EQ(args[0].type.element, "!quant.uniform<i8:f32, 0.5:-1>");
  EXPECT_EQ(args[0].type.dims, (std::vector<int64_t>{Type::kDynamic, 3}));
  EXPECT_EQ(args[1].type.kind, Type::Kind::Tuple);
  EXPECT_EQ(args[1].type.elements[1].element, "ui16");
  EXPECT_EQ(args[2].type.kind, Type::Kind::Token);
  EXPECT_EQ(args[3].type.element, "complex<f64>");
  EXPECT_EQ(args[4].type.element, "f8E4M3FN");
  EXPECT_TRUE(args[5].type.dims.empty());
  const Op& gte = m.functions[0].body.blocks[0].ops[0];
  EXPECT_EQ(gte.attr("index")->int_value, 0);
  EXPECT_EQ(gte.attr("index")->type.element, "i32");
}

TEST(StablehloParser, DenseLiterals) {
  const std::string text = R"(func.func @main() -> tensor<2xcomplex<f32>> {
  %h = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>
  %n = stablehlo.constant dense<[[1, -2, 3]]> : tensor<1x3xi32>
  %f = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %0 = stablehlo.constant dense<[(1.000000e+00,2.000000e+00), (3.000000e+00,-4.000000e+00)]> : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
})";
  const Module m = parse_mlir(text, "t.mlir");
  const auto& ops = m.functions[0].body.blocks[0].ops;
  const Attribute* hex = ops[0].attr("value");
  EXPECT_TRUE(hex->has_hex);
  EXPECT_EQ(hex->hex, (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x40}));
  const Attribute* nested = ops[1].attr("value");
  EXPECT_FALSE(nested->splat);
  ASSERT_EQ(nested->scalars.size(), 3u);
  EXPECT_EQ(nested->scalars[1].text, "-2");
  EXPECT_EQ(ops[2].attr("value")->scalars[0].text, "0x7FC00000");
  EXPECT_TRUE(ops[2].attr("value")->splat);
  const Attribute* complex = ops[3].attr("value");
  ASSERT_EQ(complex->scalars.size(), 2u);
  EXPECT_TRUE(complex->scalars[1].is_complex);
  EXPECT_EQ(complex->scalars[1].imag, "-4.000000e+00");
}

TEST(StablehloParser, CustomCallCompositeAndGenericOps) {
  const std::string text = R"(#sharding = #sdy.sharding<@mesh, [{"x"}, {}]>
module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%a: tensor<4x4xf32> {sdy.sharding = #sharding}) -> tensor<4x4xf32> {
    %0 = stablehlo.composite "tenstorrent.gelu" %a {composite_attributes = {approximate = "tanh"}, decomposition = @gelu} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"x"}]> : tensor<4x4xf32>
    stablehlo.custom_call @check.expect_close(%1, %a) {has_side_effect = true} : (tensor<4x4xf32>, tensor<4x4xf32>) -> ()
    %2 = "stablehlo.all_reduce"(%1) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %2 : tensor<4x4xf32>
  }
  func.func private @gelu(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
    return %a : tensor<4x4xf32>
  }
})";
  const Module m = parse_mlir(text, "t.mlir");
  ASSERT_EQ(m.other_ops.size(), 1u);
  EXPECT_EQ(m.other_ops[0].attr("sym_name")->text, "mesh");
  EXPECT_EQ(m.functions[0].arguments[0].attributes[0].second->dialect, "sdy.sharding");
  const auto& ops = m.functions[0].body.blocks[0].ops;
  EXPECT_EQ(ops[0].attr("name")->text, "tenstorrent.gelu");
  EXPECT_EQ(ops[0].attr("decomposition")->text, "gelu");
  EXPECT_EQ(ops[0].attr("composite_attributes")->field("approximate")->text, "tanh");
  EXPECT_EQ(ops[1].attr("sharding")->text, "#sdy.sharding<@mesh, [{}, {\"x\"}]>");
  EXPECT_EQ(ops[2].attr("call_target_name")->text, "check.expect_close");
  EXPECT_TRUE(ops[2].attr("has_side_effect")->bool_value);
  EXPECT_TRUE(ops[2].results.empty());
  EXPECT_EQ(ops[3].regions[0].blocks[0].label, "^bb0");
  EXPECT_EQ(ops[3].regions[0].blocks[0].ops.size(), 2u);
}

TEST(StablehloParser, ShardyManualComputationAndDotAlgorithm) {
  const std::string text = R"(module {
  sdy.mesh @mesh = <["a"=2]>
  func.func @main(%x: tensor<16x32xf32>, %l: tensor<4x4xf32>) -> tensor<16x32xf32> {
    %d = stablehlo.dot_general %l, %l, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 3, allow_imprecise_accumulation = false> : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %0 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"a"}, {}]>] out_shardings=[<@mesh, [{"a"}, {}]>] manual_axes={"a"} (%arg1: tensor<8x32xf32>) {
      %1 = stablehlo.add %arg1, %arg1 : tensor<8x32xf32>
      sdy.return %1 : tensor<8x32xf32>
    } : (tensor<16x32xf32>) -> tensor<16x32xf32>
    return %0 : tensor<16x32xf32>
  }
})";
  const Module m = parse_mlir(text, "t.mlir");
  const auto& ops = m.functions[0].body.blocks[0].ops;
  const Attribute* algorithm = ops[0].attr("algorithm");
  ASSERT_NE(algorithm, nullptr);
  EXPECT_EQ(algorithm->dialect, "stablehlo.dot_algorithm");
  EXPECT_EQ(algorithm->field("lhs_precision_type")->type.element, "tf32");
  EXPECT_EQ(algorithm->field("num_primitive_operations")->int_value, 3);
  const Op& manual = ops[1];
  EXPECT_EQ(manual.name, "sdy.manual_computation");
  EXPECT_EQ(manual.attr("in_shardings")->text, "#sdy.sharding_per_value<[<@mesh, [{\"a\"}, {}]>]>");
  EXPECT_EQ(manual.attr("manual_axes")->text, "#sdy<manual_axes{\"a\"}>");
  ASSERT_EQ(manual.regions.size(), 1u);
  EXPECT_EQ(manual.regions[0].blocks[0].arguments[0].type.dims, (std::vector<int64_t>{8, 32}));
  EXPECT_EQ(manual.regions[0].blocks[0].ops[1].name, "sdy.return");
  EXPECT_EQ(manual.result_types[0].dims, (std::vector<int64_t>{16, 32}));
}

TEST(StablehloParser, InterpreterTestForms) {
  // The check dialect and arith.constant as StableHLO's interpreter tests write them.
  const std::string text = R"(func.func @main(%b: tensor<?x4xf32, #stablehlo.bounds<8, ?>>) {
  %c = arith.constant 2 : i32
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[1.0, 2.0]> : tensor<2xf32>, tolerance = 1.0e-3
  check.expect_eq %0, %0 : tensor<2xf32>
  check.expect_close %0, %0, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
  %v, %i = chlo.top_k(%0, k = 1, is_stable = true) : tensor<2xf32> -> (tensor<1xf32>, tensor<1xi32>)
  func.return
})";
  const Module m = parse_mlir(text, "t.mlir");
  EXPECT_EQ(m.functions[0].arguments[0].type.encoding, "#stablehlo.bounds<8, ?>");
  const auto& ops = m.functions[0].body.blocks[0].ops;
  EXPECT_EQ(ops[0].attr("value")->int_value, 2);
  EXPECT_EQ(ops[0].result_types[0].kind, Type::Kind::Scalar);
  EXPECT_EQ(ops[2].operand_types[0].dims, (std::vector<int64_t>{2}));
  EXPECT_EQ(ops[2].attr("tolerance")->float_value, 1.0e-3);
  EXPECT_EQ(ops[3].operand_types.size(), 2u);
  EXPECT_EQ(ops[4].attr("max_ulp_difference")->int_value, 3);
  EXPECT_TRUE(ops[5].attr("is_stable")->bool_value);
  EXPECT_EQ(ops[5].result_types[1].element, "i32");
}

TEST(StablehloParser, SplitFilesKeepLineNumbers) {
  const std::string text =
      "func.func @a() {\n  return\n}\n// -----\nfunc.func @b() {\n  return\n}\n// -----\nfunc.func @c() {\n  %0 = "
      "stablehlo.add %zz, %zz : tensor<f32>\n}\n";
  try {
    parse_mlir_split(text, "s.mlir");
    FAIL() << "expected a ParseError";
  } catch (const ParseError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("s.mlir:10:22: use of undefined value '%zz'", 0), 0u) << e.what();
  }
  const std::vector<Module> parts = parse_mlir_split(text.substr(0, text.rfind("// -----")), "s.mlir");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].functions[0].name, "b");
  EXPECT_EQ(parts[1].functions[0].loc.line, 5);
}

// ---- errors ----

// The ParseError message of `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse_mlir(text, "e.mlir");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

void expect_error(const std::string& text, const std::string& prefix) {
  const std::string message = error_of(text);
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << "got: " << message << "\nwanted: " << prefix;
}

TEST(StablehloParserErrors, UnterminatedRegion) {
  expect_error(
      "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
      "  %0 = \"stablehlo.reduce\"(%a, %a) <{dimensions = array<i64>}> ({\n"
      "  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n"
      "    stablehlo.return %x : tensor<f32>\n",
      "e.mlir:2:64: unterminated region");
}

TEST(StablehloParserErrors, BadType) {
  expect_error("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.abs %a : tensor<4xfoo>\n",
               "e.mlir:2:36: expected an element type");
  expect_error("func.func @main(%a: tensor<4x4>) {\n", "e.mlir:1:31: expected 'x' after a tensor dimension");
}

TEST(StablehloParserErrors, UnknownValue) {
  expect_error(
      "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.add %a, %b : tensor<f32>\n  return %0 : "
      "tensor<f32>\n}\n",
      "e.mlir:2:26: use of undefined value '%b'");
  expect_error(
      "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0:2 = \"x.y\"(%a) : (tensor<f32>) -> (tensor<f32>, "
      "tensor<f32>)\n  return %0#2 : tensor<f32>\n}\n",
      "e.mlir:3:10: '%0' has 2 result(s), no #2");
}

TEST(StablehloParserErrors, UnbalancedBrackets) {
  expect_error(
      "func.func @main() -> tensor<2x2xi32> {\n  %0 = stablehlo.constant dense<[[1, 2], [3, 4]> : tensor<2x2xi32>\n",
      "e.mlir:2:48: expected ']' to close a dense literal list");
  expect_error("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n}\n",
               "e.mlir:4:1: expected an op");
  expect_error("#a = #sdy.sharding<@mesh, [{\"x\"}>\n", "e.mlir:1:33: unbalanced '>'");
}

TEST(StablehloParserErrors, TypeCountsAndShapes) {
  expect_error(
      "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.add %a, %a : (tensor<f32>) -> "
      "tensor<f32>\n",
      "e.mlir:2:31: 'stablehlo.add' has 2 operands but its type gives 1 operand type");
  expect_error("func.func @main() {\n  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<2xi32>\n",
               "e.mlir:2:27: dense literal of shape [3] does not match its type tensor<2xi32>");
  expect_error("func.func @main() {\n  %0, %1 = stablehlo.constant dense<1> : tensor<i32>\n",
               "e.mlir:2:3: 'stablehlo.constant' defines 2 result(s) but its type gives 1");
}

TEST(StablehloParserErrors, GarbageNeverCrashes) {
  EXPECT_NE(error_of(std::string(10000, '[')), "");
  EXPECT_NE(error_of("func.func @main() {\n  %0 = stablehlo.constant dense<" + std::string(5000, '[')), "");
  EXPECT_NE(error_of("module {\n  func.func @f(%a: tensor<f32>) {\n \x01"), "");
  EXPECT_NE(error_of("\"unterminated"), "");
  EXPECT_NE(error_of("func.func @main() -> tensor<99999999999999999999xf32>"), "");
  EXPECT_NE(error_of("module {} module {}"), "");
  EXPECT_NE(error_of("func.func @main() {\n  %0 = stablehlo.reduce(%a init: %b)\n}"), "");
}

}  // namespace
}  // namespace meshtest::frontends::stablehlo
