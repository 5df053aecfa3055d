// Op and graph tests as IR text (frontends/mtir): every `*.mtir` under a
// models root is a loader of its own (its folder: the path without the
// extension), inputs are random by declared shape and dtype (deterministic,
// ids in range of the table they index, positive for rsqrt), or taken from
// `<stem>.safetensors`, which also gives `= data` weights their data; a file
// that does not parse is a reported loader failure.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "core/ir_text.h"
#include "core/safetensors.h"
#include "discovery/discovery.h"
#include "frontends/mtir/mtir_frontend.h"

namespace meshtest {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLookup = R"(graph @lookup {
  input @ids : i64[2,16]
  input @x : f32[2,16]
  weight @table : f32[5,8] = normal(mean=0.0, std=1.0, seed=3)
  %0 = embedding(@ids, @table) : f32[2,16,8]
  %1 = rsqrt(@x) : f32[2,16]
  output @e = %0
  output @r = %1
}
)";

constexpr const char* kWithData = R"(graph @scaled {
  input @x : f32[4]
  weight @s : f32[4] = data
  %0 = mul(@x, @s) : f32[4]
  output @y = %0
}
)";

class MtirFrontend : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("meshtest-mtir-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "ops");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& relative, const std::string& text) const { std::ofstream(root_ / relative) << text; }
  discovery::Discovery discover() const { return discovery::discover({root_.string()}); }
  fs::path root_;
};

TEST_F(MtirFrontend, EachFileIsALoaderNamedByItsPath) {
  write("ops/lookup.mtir", kLookup);
  write("ops/other.mtir", kLookup);
  const discovery::Discovery d = discover();
  ASSERT_TRUE(d.failures.empty()) << d.failures[0].error;
  ASSERT_EQ(d.loaders.size(), 2u);
  EXPECT_EQ(d.loaders[0].dir, "ops/lookup");
  EXPECT_EQ(d.loaders[1].dir, "ops/other");
  ASSERT_EQ(d.loaders[0].variants.size(), 1u);
  EXPECT_EQ(d.loaders[0].variants[0].variant, "");
  EXPECT_EQ(d.loaders[0].variants[0].framework, "mtir");
  EXPECT_EQ(d.loaders[0].variants[0].model, "lookup");
}

TEST_F(MtirFrontend, RandomInputsByDeclaredTypeInRange) {
  write("ops/lookup.mtir", kLookup);
  const discovery::Discovery d = discover();
  ASSERT_EQ(d.loaders.size(), 1u);
  const sdk::ModelLoader& loader = *d.loaders[0].loader;
  const sdk::Inputs a = loader.load_inputs("", {});
  const sdk::Inputs b = loader.load_inputs("", {});
  ASSERT_EQ(a.size(), 2u);
  const Tensor& ids = a.at("ids");
  EXPECT_EQ(ids.dtype(), DType::I64);
  EXPECT_EQ(ids.shape(), (Shape{2, 16}));
  bool all_rows_seen[5] = {};
  for (int64_t i = 0; i < ids.numel(); ++i) {
    const int64_t id = ids.data<int64_t>()[i];
    ASSERT_GE(id, 0);
    ASSERT_LT(id, 5);  // the table has 5 rows
    all_rows_seen[id] = true;
    EXPECT_EQ(id, b.at("ids").data<int64_t>()[i]);  // deterministic
  }
  EXPECT_TRUE(all_rows_seen[0] && all_rows_seen[4]);
  const Tensor& x = a.at("x");
  for (int64_t i = 0; i < x.numel(); ++i) EXPECT_GT(x.data<float>()[i], 0.0f);  // rsqrt's domain
}

TEST_F(MtirFrontend, RandomInputsOfTheStablehloDtypes) {
  const Graph g = parse_graph(R"(graph @dtypes {
  input @s : i8[64]
  input @u : u64[64]
  input @h : f16[8]
  input @d : f64[8]
  output @s_out = @s
  output @u_out = @u
  output @h_out = @h
  output @d_out = @d
}
)");
  const sdk::Inputs in = frontends::random_inputs(g, 7);
  ASSERT_EQ(in.at("s").dtype(), DType::I8);
  ASSERT_EQ(in.at("u").dtype(), DType::U64);
  EXPECT_EQ(in.at("h").dtype(), DType::F16);
  EXPECT_EQ(in.at("d").dtype(), DType::F64);
  bool negative_seen = false;
  for (int64_t i = 0; i < 64; ++i) {
    const double s = in.at("s").element_as_double(i);
    const double u = in.at("u").element_as_double(i);
    EXPECT_TRUE(s >= -16 && s < 16) << s;  // small values of both signs
    EXPECT_TRUE(u >= 0 && u < 32) << u;
    negative_seen = negative_seen || s < 0;
  }
  EXPECT_TRUE(negative_seen);
}

TEST_F(MtirFrontend, TensorFileGivesInputsAndWeightData) {
  write("ops/scaled.mtir", kWithData);
  Tensor x(DType::F32, {4}), s(DType::F32, {4});
  for (int i = 0; i < 4; ++i) {
    x.data<float>()[i] = static_cast<float>(i);
    s.data<float>()[i] = 2.0f;
  }
  write_safetensors((root_ / "ops/scaled.safetensors").string(), {{"x", x}, {"s", s}});
  const discovery::Discovery d = discover();
  ASSERT_EQ(d.loaders.size(), 1u) << (d.failures.empty() ? "" : d.failures[0].error);  // .safetensors is no loader
  const sdk::ModelLoader& loader = *d.loaders[0].loader;
  EXPECT_EQ(loader.load_inputs("", {}).at("x").data<float>()[3], 3.0f);
  const sdk::Model model = loader.load_model("", {});
  EXPECT_EQ(model.graph.find_param("s")->data.data<float>()[1], 2.0f);

  fs::remove(root_ / "ops/scaled.safetensors");
  const discovery::Discovery without = discover();
  ASSERT_EQ(without.loaders.size(), 1u);
  EXPECT_THROW(without.loaders[0].loader->load_model("", {}), Error);  // `= data` with nothing to read it from
}

TEST_F(MtirFrontend, AFileThatDoesNotParseIsAReportedFailure) {
  write("ops/broken.mtir", "graph @broken {\n  %0 = nosuchop() : f32[1]\n}\n");
  const discovery::Discovery d = discover();
  EXPECT_TRUE(d.loaders.empty());
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_EQ(d.failures[0].dir, "ops/broken");
  EXPECT_NE(d.failures[0].error.find("broken.mtir"), std::string::npos) << d.failures[0].error;
}

TEST(FrontendRegistryPattern, StarExtensionMatchesByExtension) {
  EXPECT_TRUE(frontends::file_name_matches("*.mtir", "gelu_001.mtir"));
  EXPECT_FALSE(frontends::file_name_matches("*.mtir", ".mtir"));
  EXPECT_FALSE(frontends::file_name_matches("*.mtir", "gelu.mtir.txt"));
  EXPECT_TRUE(frontends::file_name_matches("loader.yaml", "loader.yaml"));
  EXPECT_NE(frontends::builtin_frontends().find("x.mtir"), nullptr);
}

}  // namespace
}  // namespace meshtest
