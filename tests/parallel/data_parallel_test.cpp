// Data-parallel batching: repeat_interleave semantics (0-d and 1-d too) and
// which inputs of an enlarged model are batched and split.
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/graph_builder.h"
#include "runner/pipeline/parallel_setup.h"

namespace meshtest::runner {
namespace {

std::vector<float> values(const Tensor& t) { return t.to(DType::F32).to_f32_vector(); }

TEST(RepeatInterleave, RepeatsEachRowInPlace) {
  const Tensor m = Tensor::from_f32({2, 2}, {1, 2, 3, 4});
  const Tensor r = repeat_interleave(m, 3);
  EXPECT_EQ(r.shape(), (Shape{6, 2}));
  EXPECT_EQ(values(r), (std::vector<float>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
  const Tensor v = repeat_interleave(Tensor::from_f32({3}, {1, 2, 3}), 2);
  EXPECT_EQ(values(v), (std::vector<float>{1, 1, 2, 2, 3, 3}));
  const Tensor s = repeat_interleave(Tensor::scalar_f32(5), 4);  // 0-d: nothing to repeat along
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(values(s), std::vector<float>{5});
  const Tensor ids = repeat_interleave(Tensor::from_i64({1, 2}, {7, 9}), 2);
  EXPECT_EQ(ids.dtype(), DType::I64);
  EXPECT_EQ(ids.shape(), (Shape{2, 2}));
  EXPECT_EQ(ids.data<int64_t>()[2], 7);
}

runtime::ArchProfile llmbox() {
  runtime::ArchProfile a;
  a.name = "n300-llmbox";
  a.chips = 8;
  a.mesh_shape = {2, 4};
  return a;
}

TEST(DataParallelInputs, BatchedInputsRepeatAndSplitOthersStayReplicated) {
  // The model for 8 chips: ids [8, 4] (batched), a 1-d per-sample scale [8],
  // a rope-like table [4, 2] and a 0-d temperature with no batch dim.
  GraphBuilder b("m");
  b.input("ids", DType::I64, {8, 4});
  const ValueId scale = b.input("scale", DType::F32, {8});
  b.input("table", DType::F32, {4, 2});
  b.input("temperature", DType::F32, {});
  b.output("y", b.relu(scale));
  const Graph g = b.finish();
  sdk::Inputs base;
  base["ids"] = Tensor::from_i64({1, 4}, {1, 2, 3, 4});
  base["scale"] = Tensor::from_f32({1}, {0.5f});
  base["table"] = Tensor::from_f32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  base["temperature"] = Tensor::scalar_f32(2.0f);
  const DataParallelInputs dp = data_parallel_inputs(g, base, llmbox());
  EXPECT_EQ(dp.inputs.at("ids").shape(), (Shape{8, 4}));
  EXPECT_EQ(dp.inputs.at("ids").data<int64_t>()[7 * 4 + 3], 4);
  EXPECT_EQ(values(dp.inputs.at("scale")), std::vector<float>(8, 0.5f));
  EXPECT_EQ(dp.inputs.at("table").shape(), (Shape{4, 2}));
  EXPECT_EQ(dp.inputs.at("temperature").shape(), Shape{});
  ASSERT_TRUE(dp.sharding);
  EXPECT_EQ(dp.sharding->mesh.text(), "2x4");
  const NamedPartitionSpec split = {{"rows", "cols"}};
  EXPECT_EQ(dp.sharding->specs.at("ids")[0], split[0]);
  EXPECT_EQ(dp.sharding->specs.at("scale")[0], split[0]);
  EXPECT_FALSE(dp.sharding->specs.count("table"));
  EXPECT_FALSE(dp.sharding->specs.count("temperature"));
}

TEST(DataParallelInputs, AShapeThatFitsNeitherBatchIsAnError) {
  GraphBuilder b("m");
  b.output("y", b.relu(b.input("x", DType::F32, {3, 4})));
  const Graph g = b.finish();
  sdk::Inputs base;
  base["x"] = Tensor::from_f32({1, 4}, {1, 2, 3, 4});
  EXPECT_THROW(data_parallel_inputs(g, base, llmbox()), Error);
}

TEST(DataParallelLoadOptions, BatchTimesChips) {
  sdk::LoadOptions base;
  EXPECT_EQ(data_parallel_load_options(base, llmbox()).batch_size, 8);
  base.batch_size = 2;
  EXPECT_EQ(data_parallel_load_options(base, llmbox()).batch_size, 16);
}

}  // namespace
}  // namespace meshtest::runner
