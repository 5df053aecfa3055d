// The C++ writer of `meshtest codegen`: one line per device instruction with
// the IR value's name and type, identifiers and literals that read back
// exactly, a hash that follows the program, and the tensors file beside it.
// (Building and running generated code against the installed package, and a
// broken line being caught: emitc_test.sh.)
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <string>

#include "codegen/cpp_codegen.h"
#include "codegen/cpp_names.h"
#include "core/error.h"
#include "core/safetensors.h"

namespace meshtest::codegen {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// x @ fc.weight, then softmax over the last axis: two instructions.
DeviceProgram two_op_program(int64_t softmax_axis = -1) {
  DeviceProgram p;
  p.name = "tiny";
  auto buffer = [&](BufferKind kind, TensorType type, std::string name) {
    DeviceBuffer b;
    b.id = static_cast<int32_t>(p.buffers.size());
    b.kind = kind;
    b.type = std::move(type);
    b.name = std::move(name);
    p.buffers.push_back(b);
  };
  buffer(BufferKind::Input, {DType::BF16, {2, 3}}, "x");
  buffer(BufferKind::Weight, {DType::BF16, {3, 4}}, "fc.weight");
  buffer(BufferKind::Activation, {DType::BF16, {2, 4}}, "");
  buffer(BufferKind::Activation, {DType::BF16, {2, 4}}, "");
  DeviceInstr matmul;
  matmul.kind = OpKind::Matmul;
  matmul.inputs = {0, 1};
  matmul.output = 2;
  matmul.origin = "op #0 matmul";
  DeviceInstr softmax;
  softmax.kind = OpKind::Softmax;
  softmax.inputs = {2};
  softmax.output = 3;
  softmax.attrs = {{"axis", softmax_axis}};
  softmax.origin = "op #1 softmax";
  p.instrs = {matmul, softmax};
  p.outputs = {{"probs", 3}};
  return p;
}

GeneratedProgram generate(const DeviceProgram& p) {
  const std::map<int32_t, Tensor> weights = {{1, Tensor::from_f32({3, 4}, std::vector<float>(12, 0.5f)).to(DType::BF16)}};
  const std::map<std::string, Tensor> inputs = {{"x", Tensor::from_f32({2, 3}, {1, 2, 3, 4, 5, 6})}};
  return generate_cpp(p, {weights}, inputs, {}, "tiny-single_device-inference");
}

TEST(Codegen, OneReadableLinePerDeviceOpNamedAfterTheIrValues) {
  const GeneratedProgram g = generate(two_op_program());
  const std::string& src = g.files.at(kSourceFile);
  EXPECT_EQ(count(src, "device::op("), 2u);
  EXPECT_NE(src.find("  const Tensor v0 = device::op(\"matmul\", {x, fc_weight}, {}, DType::BF16, {2, 4});  // %0 "
                     "bf16[2,4]\n"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("  const Tensor v1 = device::op(\"softmax\", {v0}, {{\"axis\", i64(-1)}}, DType::BF16, {2, 4});  "
                     "// %1 bf16[2,4]\n"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("const Tensor fc_weight = tensors.at(\"fc.weight\");  // weight bf16[3,4]"), std::string::npos);
  EXPECT_NE(src.find("const Tensor x = device::upload(tensors.at(\"x\"), DType::BF16);  // input bf16[2,3]"),
            std::string::npos);
  EXPECT_NE(src.find("return {{\"probs\", device::download(v1)}};"), std::string::npos);
  EXPECT_EQ(g.outputs, std::vector<std::string>{"probs"});
  const std::string& build = g.files.at(kBuildFile);
  EXPECT_NE(build.find("find_package(meshtest REQUIRED)"), std::string::npos);
  EXPECT_NE(build.find("-Wall -Wextra -Werror"), std::string::npos);
  EXPECT_NE(build.find("meshtest::meshtest_device"), std::string::npos);
}

// A 1x2 mesh: x split over the rows, each chip its own weight, the partial
// products all_reduced, the output assembled from both chips' rows.
TEST(Codegen, MeshProgramIsOneFunctionPerChipMeetingAtTheCollectives) {
  DeviceProgram p = two_op_program();
  p.instrs[1].kind = OpKind::AllReduce;
  p.instrs[1].attrs = {{"axes", std::string("model")}, {"group_size", int64_t{2}}};
  MeshLayout layout;
  layout.mesh = Mesh{{1, 2}, {"batch", "model"}};
  layout.inputs["x"] = Sharding{{{1}, {}}};
  layout.outputs["probs"] = Sharding{{{1}, {}}};
  const auto weight = [](float v) { return Tensor::from_f32({3, 4}, std::vector<float>(12, v)).to(DType::BF16); };
  const GeneratedProgram g = generate_cpp(p, {{{1, weight(0.5f)}}, {{1, weight(0.25f)}}},
                                          {{"x", Tensor::from_f32({4, 3}, std::vector<float>(12, 1.0f))}}, layout, "t");
  const std::string& src = g.files.at(kSourceFile);
  EXPECT_EQ(count(src, "device::op(\"matmul\""), 2u) << src;
  EXPECT_NE(src.find("std::map<std::string, Tensor> chip1(device::MeshChips& chips, "), std::string::npos) << src;
  EXPECT_NE(src.find("  const Tensor v1 = chips.collective(1, \"all_reduce\", v0, {{\"axes\", std::string(\"model\")}, "
                     "{\"group_size\", i64(2)}});  // %1 bf16[2,4]\n"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("device::upload(shard_for_chip(chips.mesh(), tensors.at(\"x\"), Sharding{{{1}, {}}}, 0), "
                     "DType::BF16)"),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("tensors.at(\"chip1/fc.weight\")"), std::string::npos) << src;
  EXPECT_NE(src.find("device::MeshChips chips(Mesh{{1, 2}, {\"batch\", \"model\"}});"), std::string::npos) << src;
  EXPECT_NE(src.find("{\"probs\", assemble_shards(chips.mesh(), {outputs[0].at(\"probs\"), outputs[1].at(\"probs\")}, "
                     "Sharding{{{1}, {}}})}"),
            std::string::npos)
      << src;
  EXPECT_EQ(g.tensors.count("chip0/fc.weight") + g.tensors.count("chip1/fc.weight"), 2u);
}

TEST(Codegen, HashFollowsTheProgram) {
  EXPECT_EQ(generate(two_op_program()).hash, generate(two_op_program()).hash);
  EXPECT_NE(generate(two_op_program(-1)).hash, generate(two_op_program(0)).hash);
}

TEST(Codegen, MissingWeightDataIsAnError) {
  EXPECT_THROW(generate_cpp(two_op_program(), {{}}, {{"x", Tensor::from_f32({2, 3}, {1, 2, 3, 4, 5, 6})}}, {}, "t"),
               CompileError);
}

TEST(Codegen, TensorsFileHoldsWeightsAsTheDeviceHoldsThemAndHostInputs) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "meshtest-codegen-test";
  std::filesystem::remove_all(dir);
  write_program(generate(two_op_program()), dir.string());
  EXPECT_TRUE(std::filesystem::exists(dir / kSourceFile));
  EXPECT_TRUE(std::filesystem::exists(dir / kBuildFile));
  const auto tensors = read_safetensors((dir / kTensorsFile).string());
  EXPECT_EQ(tensors.at("fc.weight").dtype(), DType::BF16);
  EXPECT_EQ(tensors.at("x").dtype(), DType::F32);
  EXPECT_EQ(tensors.at("x").to_f32_vector(), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  std::filesystem::remove_all(dir);
}

TEST(Codegen, Bfp8WeightsRoundTripThroughSafetensorsByteForByte) {
  const Tensor w = Tensor::from_f32({40, 40}, std::vector<float>(1600, 0.3f)).to(DType::BFP8_B);
  const std::string path = (std::filesystem::temp_directory_path() / "meshtest-bfp8.safetensors").string();
  write_safetensors(path, {{"w", w}});
  const Tensor back = read_safetensors(path).at("w");
  ASSERT_EQ(back.dtype(), DType::BFP8_B);
  ASSERT_EQ(back.nbytes(), w.nbytes());
  EXPECT_EQ(std::memcmp(back.raw_data(), w.raw_data(), w.nbytes()), 0);
  std::filesystem::remove(path);
}

TEST(CodegenNames, IdentifiersAreValidUniqueAndNeverKeywords) {
  Identifiers ids({"tensors"});
  EXPECT_EQ(ids.make("conv1.weight"), "conv1_weight");
  EXPECT_EQ(ids.make("conv1/weight"), "conv1_weight_2");
  EXPECT_EQ(ids.make("int"), "t_int");
  EXPECT_EQ(ids.make("0.bias"), "t_0_bias");
  EXPECT_EQ(ids.make("__x"), "t___x");
  EXPECT_EQ(ids.make("tensors"), "tensors_2");
  EXPECT_EQ(ids.make(""), "t_");
}

TEST(CodegenNames, LiteralsReadBackExactly) {
  EXPECT_EQ(cpp_attrs({}), "{}");
  EXPECT_EQ(cpp_attrs({{"eps", 1e-05}, {"stride", std::vector<int64_t>{2, 2}}, {"mode", std::string("a\"b\n")}}),
            "{{\"eps\", 1e-05}, {\"mode\", std::string(\"a\\\"b\\x0a\"\"\")}, {\"stride\", Ints{2, 2}}}");
  EXPECT_EQ(cpp_attrs({{"k", 3.0}}), "{{\"k\", 3.0}}");
  EXPECT_EQ(cpp_attrs({{"lo", -std::numeric_limits<double>::infinity()}}),
            "{{\"lo\", -std::numeric_limits<double>::infinity()}}");
  EXPECT_EQ(cpp_attrs({{"n", std::numeric_limits<int64_t>::min()}}),
            "{{\"n\", i64(std::numeric_limits<int64_t>::min())}}");
  EXPECT_EQ(cpp_shape({}), "{}");
  EXPECT_EQ(cpp_shape({1, 64}), "{1, 64}");
  EXPECT_EQ(cpp_dtype(DType::BFP8_B), "DType::BFP8_B");
}

}  // namespace
}  // namespace meshtest::codegen
