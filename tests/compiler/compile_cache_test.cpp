// Tests of the compile cache (keys, round trip, corrupted and foreign
// entries) and of compiling huge lazily initialized graphs without
// materializing their weights (--compile-only).
#include "compiler/compile_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/llama_shaped_graph.h"
#include "compiler/program_text.h"
#include "core/error.h"
#include "core/graph_builder.h"

namespace meshtest::compiler {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

Graph folded_graph(uint64_t seed) {
  GraphBuilder g("fold");
  const ValueId x = g.input("x", DType::F32, {4, 8});
  const ValueId w = g.weight("w", {16, 8}, Initializer::normal(0, 0.1, seed));
  const ValueId wt = g.mul(g.transpose(w, {1, 0}), g.constant(0.5));
  g.output("y", g.matmul(x, wt));
  return g.finish();
}

class CompileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("meshtest-cache-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CompileCacheTest, KeyDependsOnGraphWeightsOptionsAndTarget) {
  CompileOptions o;
  const std::string base = compile_cache_key(folded_graph(1), o, "n150 1x1");
  EXPECT_EQ(base, compile_cache_key(folded_graph(1), o, "n150 1x1"));
  EXPECT_NE(base, compile_cache_key(folded_graph(2), o, "n150 1x1"));
  EXPECT_NE(base, compile_cache_key(folded_graph(1), o, "p150 1x1"));
  o.optimization_level = 1;
  EXPECT_NE(base, compile_cache_key(folded_graph(1), o, "n150 1x1"));
  // Weights with data (no initializer) are identified by their bytes.
  Graph a = folded_graph(1);
  a.materialize_weights();
  a.find_param("w")->init.reset();
  Graph b = a;
  b.find_param("w")->data = a.find_param("w")->data.clone();
  b.find_param("w")->data.data<float>()[0] += 1.0f;
  EXPECT_NE(compile_cache_key(a, {}, "n150"), compile_cache_key(b, {}, "n150"));
}

TEST_F(CompileCacheTest, RoundTripGivesTheSameProgramAndFoldedWeights) {
  CompileOptions o;
  o.optimization_level = 1;
  const Graph graph = folded_graph(1);
  const CompileResult compiled = compile_program(graph, o);
  ASSERT_EQ(compiled.stats.at("const-eval.weights_created"), 1);
  CompileCache cache(dir_.string());
  const std::string key = compile_cache_key(graph, o, "n150 1x1");
  std::string warning;
  EXPECT_FALSE(cache.load(key, warning).has_value());
  EXPECT_EQ(cache.store(key, compiled), "");
  const auto hit = cache.load(key, warning);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(warning, "");
  EXPECT_EQ(print_program(hit->program), print_program(compiled.program));
  EXPECT_EQ(hit->stats, compiled.stats);
  ASSERT_EQ(hit->program.weights.size(), compiled.program.weights.size());
  for (const auto& [id, t] : compiled.program.weights) {
    EXPECT_EQ(t.to_f32_vector(), hit->program.weights.at(id).to_f32_vector());
  }
}

TEST_F(CompileCacheTest, CorruptedAndForeignEntriesAreIgnoredWithAWarning) {
  const Graph graph = folded_graph(1);
  const CompileResult compiled = compile_program(graph, {});
  CompileCache cache(dir_.string());
  const std::string key = compile_cache_key(graph, {}, "n150 1x1");
  ASSERT_EQ(cache.store(key, compiled), "");
  std::string warning;
  {
    std::fstream f(cache.entry_path(key), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);
    f.put('\x7f');
  }
  EXPECT_FALSE(cache.load(key, warning).has_value());
  EXPECT_THAT(warning, HasSubstr("corrupted"));
  // An entry stored under another key (copied by hand) is foreign.
  ASSERT_EQ(cache.store("other", compiled), "");
  fs::copy_file(cache.entry_path("other"), cache.entry_path(key), fs::copy_options::overwrite_existing);
  EXPECT_FALSE(cache.load(key, warning).has_value());
  EXPECT_THAT(warning, HasSubstr("belongs to key other"));
  // Garbage.
  std::ofstream(cache.entry_path(key)) << "not a program";
  EXPECT_FALSE(cache.load(key, warning).has_value());
  EXPECT_THAT(warning, HasSubstr("recompiling"));
  // Rebuilt by the next store.
  ASSERT_EQ(cache.store(key, compiled), "");
  EXPECT_TRUE(cache.load(key, warning).has_value());
}

TEST(CompileOnly, EightBillionParameterGraphPlansWithoutMaterializingWeights) {
  const Graph graph = bench::llama_shaped_graph(bench::LlamaShape::llama_3_1_8b());
  EXPECT_GT(graph.weight_count(), int64_t{7'500'000'000});
  CompileOptions o;
  o.optimization_level = 1;
  const CompileResult bf16 = compile_program(graph, o);
  for (const Param* p : graph.weights()) EXPECT_FALSE(p->data.defined()) << p->name;
  EXPECT_TRUE(bf16.program.weights.empty());
  EXPECT_GT(bf16.program.planned_peak_dram_bytes, int64_t{15} << 30);  // bf16 weights alone are ~15 GiB
  // Too big for a 12 GiB n150 in bf16 ...
  o.dram_capacity_bytes = int64_t{12} << 30;
  EXPECT_THROW(compile_program(graph, o), OutOfMemoryError);
  // ... but it fits with bfp8_b matmul weights.
  o.weight_dtype = DType::BFP8_B;
  const CompileResult bfp8 = compile_program(graph, o);
  EXPECT_LT(bfp8.program.planned_peak_dram_bytes, int64_t{12} << 30);
  std::printf("8B planned peak DRAM: bf16 %.2f GiB, bfp8_b %.2f GiB\n",
              static_cast<double>(bf16.program.planned_peak_dram_bytes) / (1 << 30),
              static_cast<double>(bfp8.program.planned_peak_dram_bytes) / (1 << 30));
}

}  // namespace
}  // namespace meshtest::compiler
