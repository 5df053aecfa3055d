// Tests of the compile cache (keys, round trip, corrupted, truncated, foreign
// and older-format entries, attribute sets shared after loading), of the
// entry hash, and of compiling huge lazily initialized graphs without
// materializing their weights (--compile-only).
#include "compiler/compile_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "bench/llama_shaped_graph.h"
#include "compiler/program_serialize.h"
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
  // A file's data (Param::data_source, the ONNX importer's initializers) is
  // identified by that name, not read: same source, same key whatever the
  // bytes; another source (the file changed: size or time), another key.
  a.find_param("w")->data_source = "/m/model.onnx:100:1#w";
  b.find_param("w")->data_source = "/m/model.onnx:100:1#w";
  EXPECT_EQ(compile_cache_key(a, {}, "n150"), compile_cache_key(b, {}, "n150"));
  b.find_param("w")->data_source = "/m/model.onnx:100:2#w";
  EXPECT_NE(compile_cache_key(a, {}, "n150"), compile_cache_key(b, {}, "n150"));
  // Attribute values and operand order count too.
  Graph c = folded_graph(1);
  const auto transpose = std::find_if(c.ops.begin(), c.ops.end(), [](const Op& op) { return op.attrs.has("perm"); });
  ASSERT_NE(transpose, c.ops.end());
  transpose->attrs.set("perm", std::vector<int64_t>{0, 1});
  EXPECT_NE(base, compile_cache_key(c, {}, "n150 1x1"));
  Graph d = folded_graph(1);
  std::swap(d.ops.back().inputs[0], d.ops.back().inputs[1]);
  EXPECT_NE(base, compile_cache_key(d, {}, "n150 1x1"));
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

std::string read_entry(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_entry(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST_F(CompileCacheTest, TruncatedOlderFormatAndBitFlippedEntriesAreIgnored) {
  const Graph graph = folded_graph(1);
  const CompileResult compiled = compile_program(graph, {});
  CompileCache cache(dir_.string());
  const std::string key = compile_cache_key(graph, {}, "n150 1x1");
  ASSERT_EQ(cache.store(key, compiled), "");
  const std::string good = read_entry(cache.entry_path(key));
  std::string warning;
  // The previous format (same layout idea, other magic) is not read.
  std::string old = good;
  old.replace(0, 8, "MTPROG01");
  write_entry(cache.entry_path(key), old);
  EXPECT_FALSE(cache.load(key, warning).has_value());
  EXPECT_THAT(warning, HasSubstr("older format"));
  // Cut short: anywhere in the body, or inside the magic.
  for (size_t size : {good.size() - 1, good.size() / 2, size_t{12}, size_t{5}, size_t{0}}) {
    write_entry(cache.entry_path(key), good.substr(0, size));
    EXPECT_FALSE(cache.load(key, warning).has_value()) << size;
    EXPECT_THAT(warning, HasSubstr("recompiling")) << size;
  }
  // One flipped bit anywhere, checksum included.
  for (size_t at = 8; at < good.size(); at += 7) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ 0x10);
    write_entry(cache.entry_path(key), bad);
    EXPECT_FALSE(cache.load(key, warning).has_value()) << at;
    EXPECT_THAT(warning, HasSubstr("corrupted")) << at;
  }
  write_entry(cache.entry_path(key), good);
  EXPECT_TRUE(cache.load(key, warning).has_value());
  EXPECT_EQ(warning, "");
}

TEST_F(CompileCacheTest, LoadedInstructionsShareAttributeSetsUntilChanged) {
  bench::LlamaShape shape = bench::LlamaShape::llama_3_2_1b();
  shape.layers = 2;
  const Graph graph = bench::llama_shaped_graph(shape);
  CompileOptions o;
  o.optimization_level = 1;
  const CompileResult compiled = compile_program(graph, o);
  CompileCache cache(dir_.string());
  const std::string key = compile_cache_key(graph, o, "n150 1x1");
  ASSERT_EQ(cache.store(key, compiled), "");
  std::string warning;
  auto hit = cache.load(key, warning);
  ASSERT_TRUE(hit.has_value()) << warning;
  EXPECT_EQ(print_program(hit->program), print_program(compiled.program));
  // Two instructions with equal attributes (the layers repeat) share one map ...
  std::vector<DeviceInstr>& instrs = hit->program.instrs;
  DeviceInstr* first = nullptr;
  DeviceInstr* second = nullptr;
  for (size_t i = 0; i < instrs.size() && second == nullptr; ++i) {
    for (size_t j = 0; j < i && second == nullptr; ++j) {
      if (!instrs[i].attrs.values().empty() && instrs[i].attrs == instrs[j].attrs) {
        first = &instrs[j];
        second = &instrs[i];
      }
    }
  }
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(&first->attrs.values(), &second->attrs.values());
  // ... and changing one leaves the other as it was.
  const Attrs before = first->attrs;
  second->attrs.set("extra", int64_t{1});
  EXPECT_TRUE(first->attrs == before);
  EXPECT_FALSE(first->attrs.has("extra"));
  EXPECT_TRUE(second->attrs.has("extra"));
}

TEST(EntryHashTest, EveryByteAndTheLengthCount) {
  // Sizes around the word tail (1..7 bytes) and the bulk path (whole blocks
  // straight from the data from 512 bytes on).
  for (size_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 31, 63, 64, 65, 255, 256, 511, 512, 513, 777, 4096}) {
    std::string data(n, '\0');
    for (size_t i = 0; i < n; ++i) data[i] = static_cast<char>(i * 31 + 7);
    const uint64_t base = hash_bytes(data);
    EXPECT_EQ(base, hash_bytes(std::string(data)));
    for (size_t at = 0; at < n; at += (n < 64 ? 1 : 13)) {
      std::string changed = data;
      changed[at] = static_cast<char>(changed[at] ^ 1);
      EXPECT_NE(hash_bytes(changed), base) << n << " byte " << at;
    }
    EXPECT_NE(hash_bytes(data + '\0'), base) << n;  // zero padding is not the same as zero bytes
  }
  EXPECT_NE(hash_bytes(""), hash_bytes(std::string(1, '\0')));
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
