// Safetensors weights: a written file reads back bit-exactly (mmap views),
// malformed files are errors naming the file, and a loader given
// MESHTEST_WEIGHTS_DIR takes its weights from <variant>.safetensors with
// names and shapes checked; known extra tensors (num_batches_tracked, a
// pooler) are ignored with a warning, any other extra tensor is an error.
#include "models/common/safetensors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/rng.h"
#include "tests/models/loader_plugin.h"

namespace meshtest::testing {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("meshtest_st_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.nbytes() == b.nbytes() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

TEST(Safetensors, WrittenFileReadsBackBitExactly) {
  const fs::path file = temp_dir("roundtrip") / "t.safetensors";
  const std::map<std::string, Tensor> tensors = {
      {"a.weight", random_normal({2, 3}, 1)},
      {"b", random_normal({5}, 2).to(DType::BF16)},
      {"ids", random_int({3}, 3, 0, 100)},
  };
  models::write_safetensors(file.string(), tensors);
  const auto back = models::read_safetensors(file.string());
  ASSERT_EQ(back.size(), tensors.size());
  for (const auto& [name, t] : tensors) EXPECT_TRUE(same_bytes(back.at(name), t)) << name;
}

TEST(Safetensors, MalformedFilesNameTheFile) {
  const fs::path dir = temp_dir("bad");
  const std::string missing = (dir / "missing.safetensors").string();
  EXPECT_THROW(models::read_safetensors(missing), Error);
  const std::string huge_header = (dir / "huge.safetensors").string();
  {
    std::ofstream out(huge_header, std::ios::binary);
    const unsigned char size[8] = {0xff, 0xff, 0, 0, 0, 0, 0, 0};
    out.write(reinterpret_cast<const char*>(size), 8);
    out << "{}";
  }
  try {
    models::read_safetensors(huge_header);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("huge.safetensors"), std::string::npos) << e.what();
  }
  const std::string short_data = (dir / "short.safetensors").string();
  {
    const std::string header = R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
    std::ofstream out(short_data, std::ios::binary);
    unsigned char size[8] = {};
    size[0] = static_cast<unsigned char>(header.size());
    out.write(reinterpret_cast<const char*>(size), 8);
    out << header << "12345678";  // 8 of the 16 bytes
  }
  EXPECT_THROW(models::read_safetensors(short_data), Error);
}

// Sets MESHTEST_WEIGHTS_DIR for one scope.
struct WeightsDir {
  explicit WeightsDir(const fs::path& dir) { ::setenv("MESHTEST_WEIGHTS_DIR", dir.c_str(), 1); }
  ~WeightsDir() { ::unsetenv("MESHTEST_WEIGHTS_DIR"); }
};

TEST(Safetensors, LoaderTakesWeightsFromTheVariantsFile) {
  auto loader = make_loader("mnist/image_classification/native");
  const sdk::Model lazy = loader->load_model("mlp", {});
  std::map<std::string, Tensor> weights;
  uint64_t seed = 10;
  for (const Param* p : lazy.graph.weights()) weights[p->name] = random_normal(lazy.graph.type(p->value).shape, ++seed);
  const fs::path dir = temp_dir("loader");
  models::write_safetensors((dir / "mlp.safetensors").string(), weights);

  const WeightsDir env(dir);
  const sdk::Model loaded = loader->load_model("mlp", {});
  for (const Param* p : loaded.graph.weights()) {
    ASSERT_TRUE(p->data.defined()) << p->name;
    EXPECT_TRUE(same_bytes(p->data, weights.at(p->name))) << p->name;
  }
  sdk::LoadOptions bf16;
  bf16.dtype_override = DType::BF16;
  const sdk::Model converted = loader->load_model("mlp", bf16);
  EXPECT_EQ(converted.graph.find_param("fc1.weight")->data.dtype(), DType::BF16);

  // A wrong shape and an unknown tensor are errors naming the parameter.
  std::map<std::string, Tensor> bad = weights;
  bad["fc2.weight"] = random_normal({3, 3}, 1);
  models::write_safetensors((dir / "mlp.safetensors").string(), bad);
  try {
    loader->load_model("mlp", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fc2.weight"), std::string::npos) << e.what();
  }
  bad = weights;
  bad["extra.weight"] = random_normal({1}, 1);
  models::write_safetensors((dir / "mlp.safetensors").string(), bad);
  EXPECT_THROW(loader->load_model("mlp", {}), Error);
}

// Writes mlp's weights plus `extra` as $MESHTEST_WEIGHTS_DIR/mlp.safetensors.
fs::path mlp_weights_with(const std::string& name, const std::map<std::string, Tensor>& extra) {
  const sdk::Model lazy = make_loader("mnist/image_classification/native")->load_model("mlp", {});
  std::map<std::string, Tensor> weights = extra;
  for (const Param* p : lazy.graph.weights()) weights[p->name] = random_normal(lazy.graph.type(p->value).shape, 3);
  const fs::path dir = temp_dir(name);
  models::write_safetensors((dir / "mlp.safetensors").string(), weights);
  return dir;
}

TEST(Safetensors, KnownExtraTensorsAreIgnoredWithAWarningNamingThem) {
  const fs::path dir = mlp_weights_with("known_extra", {{"bn1.num_batches_tracked", random_int({}, 1, 0, 9)},
                                                        {"bert.pooler.dense.weight", random_normal({4, 4}, 1)},
                                                        {"bert.pooler.dense.bias", random_normal({4}, 2)}});
  const WeightsDir env(dir);
  ::testing::internal::CaptureStderr();
  const sdk::Model loaded = make_loader("mnist/image_classification/native")->load_model("mlp", {});
  const std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(loaded.graph.find_param("fc1.weight")->data.defined());
  EXPECT_NE(warning.find("warning: " + (dir / "mlp.safetensors").string() +
                         ": ignored 3 known extra tensors: bert.pooler.dense.bias, bert.pooler.dense.weight, "
                         "bn1.num_batches_tracked"),
            std::string::npos)
      << warning;
}

TEST(Safetensors, UnknownExtraTensorThatLooksLikeAParameterFailsNamingIt) {
  const fs::path dir = mlp_weights_with("unknown_extra", {{"fc9.weight", random_normal({10, 10}, 1)}});
  const WeightsDir env(dir);
  try {
    make_loader("mnist/image_classification/native")->load_model("mlp", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'fc9.weight' is not a weight of the model"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace meshtest::testing
