// Tests of the device compiler: lowering dtypes, buffers, weights, release
// lists, planned peak DRAM and the compile-time out-of-memory diagnosis.
#include "compiler/compile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "core/graph_builder.h"

namespace meshtest::compiler {
namespace {

using ::testing::HasSubstr;

const DeviceBuffer& buffer_named(const DeviceProgram& p, const std::string& name) {
  for (const DeviceBuffer& b : p.buffers) {
    if (b.name == name) return b;
  }
  throw std::runtime_error("no buffer named " + name);
}

// ids -> embedding(table) -> layer_norm -> linear(w, b) -> matmul(., m) -> out
// plus an f32 input x added at the end.
Graph mixed_graph() {
  GraphBuilder g("mixed");
  const ValueId ids = g.input("ids", DType::I64, {2, 8});
  const ValueId x = g.input("x", DType::F32, {2, 8, 16});
  const ValueId table = g.weight("table", {50, 32}, Initializer::normal(0, 1, 1));
  const ValueId gamma = g.weight("gamma", {32}, Initializer::constant(1.0));
  const ValueId beta = g.weight("beta", {32}, Initializer::constant(0.0));
  const ValueId w = g.weight("w", {16, 32}, Initializer::normal(0, 0.1, 2));
  const ValueId bias = g.weight("b", {16}, Initializer::normal(0, 0.1, 3));
  const ValueId m = g.weight("m", {16, 16}, Initializer::normal(0, 0.1, 4));
  g.weight("unused", {4, 4}, Initializer::constant(2.0));
  const ValueId e = g.op(OpKind::Embedding, {ids, table});
  const ValueId n = g.op(OpKind::LayerNorm, {e, gamma, beta}, {{"eps", 1e-5}});
  const ValueId l = g.linear(n, w, bias);
  const ValueId mm = g.matmul(l, m);
  g.output("out", g.add(mm, x));
  return g.finish();
}

TEST(TilePaddedBytes, PadsLastTwoDimsToTiles) {
  EXPECT_EQ(tile_padded_bytes({DType::BF16, {1, 3, 224, 224}}), 3 * 224 * 224 * 2);
  EXPECT_EQ(tile_padded_bytes({DType::BF16, {1, 3, 225, 224}}), 3 * 256 * 224 * 2);
  EXPECT_EQ(tile_padded_bytes({DType::F32, {2, 3, 33, 65}}), 6 * 64 * 96 * 4);
  EXPECT_EQ(tile_padded_bytes({DType::BF16, {5}}), 32 * 32 * 2);  // one row of tiles
  EXPECT_EQ(tile_padded_bytes({DType::BF16, {40}}), 32 * 64 * 2);
  EXPECT_EQ(tile_padded_bytes({DType::BF16, {}}), 32 * 32 * 2);  // scalar: one tile
  EXPECT_EQ(tile_padded_bytes({DType::I64, {2, 8}}), 32 * 32 * 8);
  EXPECT_EQ(tile_padded_bytes({DType::BFP8_B, {32, 32}}), 1024 / 16 * 17);
  EXPECT_EQ(tile_padded_bytes({DType::BFP8_B, {1000, 2048}}), 1024 * 2048 / 16 * 17);
}

TEST(Lower, DeviceDtypesPerBufferRole) {
  const Graph graph = mixed_graph();
  for (DType wdt : {DType::BF16, DType::BFP8_B}) {
    CompileOptions opt;
    opt.weight_dtype = wdt;
    const DeviceProgram p = compile(graph, opt);
    EXPECT_EQ(buffer_named(p, "ids").type.dtype, DType::I64);
    EXPECT_EQ(buffer_named(p, "ids").kind, BufferKind::Input);
    EXPECT_EQ(buffer_named(p, "x").type.dtype, DType::BF16);
    EXPECT_EQ(buffer_named(p, "table").type.dtype, DType::BF16);  // embedding table: not a GEMM weight
    EXPECT_EQ(buffer_named(p, "gamma").type.dtype, DType::BF16);
    EXPECT_EQ(buffer_named(p, "b").type.dtype, DType::BF16);  // bias stays bf16
    EXPECT_EQ(buffer_named(p, "w").type.dtype, wdt);
    EXPECT_EQ(buffer_named(p, "m").type.dtype, wdt);
    EXPECT_EQ(buffer_named(p, "w").kind, BufferKind::Weight);
    for (const DeviceBuffer& b : p.buffers) {
      EXPECT_NE(b.name, "unused");  // no op uses it: no buffer
      EXPECT_EQ(b.device_bytes, tile_padded_bytes(b.type)) << b.name;
      if (b.kind == BufferKind::Activation) {
        EXPECT_EQ(b.type.dtype, DType::BF16);
      }
    }
    ASSERT_EQ(p.instrs.size(), graph.ops.size());
    EXPECT_EQ(p.instrs[0].origin, "op #0 embedding");
    EXPECT_EQ(p.instrs[3].origin, "op #3 matmul");
    EXPECT_EQ(p.instrs[2].kind, OpKind::Linear);
    EXPECT_EQ(p.instrs[1].attrs.get_float("eps"), 1e-5);
    ASSERT_EQ(p.outputs.size(), 1u);
    EXPECT_EQ(p.outputs[0].first, "out");
    EXPECT_EQ(p.outputs[0].second, p.instrs.back().output);
    // Weight data materialized and converted to the buffer dtype.
    for (const DeviceBuffer& b : p.buffers) {
      if (b.kind != BufferKind::Weight) continue;
      ASSERT_TRUE(p.weights.count(b.id)) << b.name;
      EXPECT_EQ(p.weights.at(b.id).dtype(), b.type.dtype) << b.name;
      EXPECT_EQ(p.weights.at(b.id).shape(), b.type.shape) << b.name;
    }
  }
}

TEST(Lower, ConvWeightsAreCountedAsGemmMatrices) {
  GraphBuilder g("conv");
  const ValueId x = g.input("x", DType::F32, {1, 16, 8, 8});
  const ValueId w = g.weight("w", {64, 16, 1, 1}, Initializer::normal(0, 1, 1));
  const ValueId dw = g.weight("dw", {64, 1, 3, 3}, Initializer::normal(0, 1, 2));
  const ValueId c = g.op(OpKind::Conv2d, {x, w});
  g.output("y", g.op(OpKind::Conv2d, {c, dw}, {{"groups", int64_t{64}}, {"padding", std::vector<int64_t>{1, 1}}}));
  CompileOptions opt;
  opt.weight_dtype = DType::BFP8_B;
  const DeviceProgram p = compile(g.finish(), opt);
  EXPECT_EQ(buffer_named(p, "w").type, (TensorType{DType::BFP8_B, {64, 16, 1, 1}}));
  EXPECT_EQ(buffer_named(p, "w").device_bytes, tile_padded_bytes({DType::BFP8_B, {64, 16}}));
  EXPECT_EQ(buffer_named(p, "dw").device_bytes, tile_padded_bytes({DType::BFP8_B, {64, 9}}));
  EXPECT_EQ(buffer_named(p, "x").device_bytes, tile_padded_bytes({DType::BF16, {1, 16, 8, 8}}));
}

TEST(Lower, WeightConversionMatchesTensorTo) {
  const Graph graph = mixed_graph();
  const Param* w = graph.find_param("w");
  const Tensor f32 = materialize(*w, graph.type(w->value));
  for (DType wdt : {DType::BF16, DType::BFP8_B}) {
    CompileOptions opt;
    opt.weight_dtype = wdt;
    const DeviceProgram p = compile(graph, opt);
    const Tensor& dev = p.weights.at(buffer_named(p, "w").id);
    const Tensor expected = f32.to(wdt);
    ASSERT_EQ(dev.nbytes(), expected.nbytes());
    EXPECT_EQ(std::memcmp(dev.raw_data(), expected.raw_data(), dev.nbytes()), 0);
  }
}

TEST(Lower, WeightSharedWithNonGemmUseStaysBf16) {
  GraphBuilder g("tied");
  const ValueId ids = g.input("ids", DType::I32, {4});
  const ValueId table = g.weight("table", {10, 8}, Initializer::normal(0, 1, 5));
  const ValueId e = g.op(OpKind::Embedding, {ids, table});
  g.output("logits", g.linear(e, table));
  CompileOptions opt;
  opt.weight_dtype = DType::BFP8_B;
  const DeviceProgram p = compile(g.finish(), opt);
  EXPECT_EQ(buffer_named(p, "table").type.dtype, DType::BF16);
  EXPECT_EQ(buffer_named(p, "ids").type.dtype, DType::I32);
}

TEST(Lower, RejectsUnsupportedWeightDtype) {
  CompileOptions opt;
  opt.weight_dtype = DType::F32;
  EXPECT_THROW(compile(mixed_graph(), opt), CompileError);
}

TEST(Lower, VerifiesTheGraphFirst) {
  Graph graph = mixed_graph();
  graph.ops[2].inputs[1] = graph.ops[2].inputs[0];  // linear weight of the wrong shape
  try {
    compile(graph, {});
    FAIL() << "expected CompileError";
  } catch (const CompileError& e) {
    EXPECT_THAT(e.what(), HasSubstr("op #2 linear"));
  }
}

// x -> a=relu(x) -> b=exp(a) -> c=add(a,b) -> d=neg(x) (dead) -> e=mul(c,c) -> out e, also out b
TEST(Liveness, ReleaseListsFollowLastUse) {
  GraphBuilder g("chain");
  const ValueId x = g.input("x", DType::F32, {64, 64});
  const ValueId a = g.relu(x);
  const ValueId b = g.op(OpKind::Exp, {a});
  const ValueId c = g.add(a, b);
  g.op(OpKind::Neg, {x});
  const ValueId e = g.mul(c, c);
  g.output("e", e);
  g.output("b", b);
  const DeviceProgram p = compile(g.finish(), {});
  ASSERT_EQ(p.instrs.size(), 5u);
  const int32_t xb = buffer_named(p, "x").id;
  const int32_t ab = p.instrs[0].output;
  const int32_t cb = p.instrs[2].output;
  const int32_t db = p.instrs[3].output;
  EXPECT_TRUE(p.instrs[0].release.empty());
  EXPECT_TRUE(p.instrs[1].release.empty());
  EXPECT_EQ(p.instrs[2].release, std::vector<int32_t>{ab});  // b is an output: never released
  std::vector<int32_t> r3 = p.instrs[3].release;             // x's last use, and the dead result
  std::sort(r3.begin(), r3.end());
  EXPECT_EQ(r3, (std::vector<int32_t>{xb, db}));
  EXPECT_EQ(p.instrs[4].release, std::vector<int32_t>{cb});  // e is an output

  // Peak: input (resident) + the most activations live at once.
  const int64_t t = tile_padded_bytes({DType::BF16, {64, 64}});
  // live activations: i0: a; i1: a,b; i2: a,b,c; i3: b,c,d; i4: b,c,e -> 3 tiles' worth
  EXPECT_EQ(p.planned_peak_dram_bytes, t + 3 * t);
}

TEST(Liveness, PeakCountsWeightsAndInputs) {
  GraphBuilder g("mlp");
  const ValueId x = g.input("x", DType::F32, {32, 64});
  const ValueId w1 = g.weight("w1", {128, 64}, Initializer::normal(0, 1, 1));
  const ValueId w2 = g.weight("w2", {64, 128}, Initializer::normal(0, 1, 2));
  g.output("y", g.linear(g.relu(g.linear(x, w1)), w2));
  const DeviceProgram p = compile(g.finish(), {});
  const int64_t weights = tile_padded_bytes({DType::BF16, {128, 64}}) + tile_padded_bytes({DType::BF16, {64, 128}});
  const int64_t input = tile_padded_bytes({DType::BF16, {32, 64}});
  const int64_t h = tile_padded_bytes({DType::BF16, {32, 128}});
  const int64_t y = tile_padded_bytes({DType::BF16, {32, 64}});
  // relu: h live with relu(h) -> 2h is the activation peak (y + relu(h) < 2h).
  EXPECT_EQ(p.planned_peak_dram_bytes, weights + input + std::max(2 * h, h + y));
}

TEST(Liveness, OutOfMemoryAtCompileNamesPeakCapacityAndLargestTensors) {
  GraphBuilder g("big");
  const ValueId x = g.input("image", DType::F32, {1, 8, 64, 64});
  const ValueId w = g.weight("conv.weight", {64, 8, 3, 3}, Initializer::normal(0, 1, 1));
  const ValueId c = g.op(OpKind::Conv2d, {x, w}, {{"padding", std::vector<int64_t>{1, 1}}});
  g.output("y", g.relu(c));
  const Graph graph = g.finish();
  const DeviceProgram unlimited = compile(graph, {});
  CompileOptions opt;
  opt.dram_capacity_bytes = unlimited.planned_peak_dram_bytes - 1;
  try {
    compile(graph, opt);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    const std::string msg = e.what();
    EXPECT_THAT(msg, HasSubstr(std::to_string(unlimited.planned_peak_dram_bytes) + " bytes"));
    EXPECT_THAT(msg, HasSubstr(std::to_string(opt.dram_capacity_bytes) + " bytes"));
    EXPECT_THAT(msg, HasSubstr("at op #1 relu"));
    const int64_t act = tile_padded_bytes({DType::BF16, {1, 64, 64, 64}});
    EXPECT_THAT(msg, HasSubstr("op #0 conv2d result bf16[1,64,64,64] = 512.00 KiB (" + std::to_string(act)));
    EXPECT_THAT(msg, HasSubstr("op #1 relu result"));
    EXPECT_THAT(msg, HasSubstr("input 'image'"));
    EXPECT_THAT(msg, Not(HasSubstr("conv.weight")));  // 4th largest: not listed
  }
  opt.dram_capacity_bytes = unlimited.planned_peak_dram_bytes;
  EXPECT_NO_THROW(compile(graph, opt));
}

TEST(Liveness, OutOfMemoryIsRaisedBeforeWeightsAreMaterialized) {
  GraphBuilder g("large");
  const ValueId x = g.input("x", DType::F32, {1, 1024});
  // 64 Mi elements: 128 MiB as bf16 against a 64 MiB device.
  const ValueId w = g.weight("w", {1 << 16, 1024}, Initializer::normal(0, 1, 1));
  g.output("y", g.linear(x, w));
  CompileOptions opt;
  opt.dram_capacity_bytes = int64_t{64} << 20;
  try {
    compile(g.finish(), opt);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("weight 'w' bf16[65536,1024] = 128.00 MiB"));
  }
}

}  // namespace
}  // namespace meshtest::compiler
