// Declarative loaders through discovery: a loader.yaml found under a models
// root reaches the frontend registered for that file name and becomes a
// loader like a native plugin; one no frontend reads, a frontend that fails,
// and a folder with two loader files are reported failures, never skipped.
// The importer here is test-only: it reads one variant name per line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"
#include "discovery/discovery.h"
#include "frontends/frontend_registry.h"

namespace meshtest {
namespace {

namespace fs = std::filesystem;

// A loader whose variants are the lines of its file (nothing to build: the
// tests only collect).
class LinesLoader : public sdk::ModelLoader {
 public:
  explicit LinesLoader(std::vector<std::string> variants) : variants_(std::move(variants)) {}
  std::vector<std::string> variants() const override { return variants_; }
  sdk::ModelInfo info(std::string_view) const override {
    sdk::ModelInfo info;
    info.model = "lines";
    info.framework = "declarative";
    return info;
  }
  sdk::Model load_model(std::string_view, const sdk::LoadOptions&) const override {
    throw Error("the lines loader only lists variants");
  }
  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions&) const override {
    throw Error("the lines loader only lists variants");
  }

 private:
  std::vector<std::string> variants_;
};

frontends::Frontend lines_frontend() {
  return {"lines", "loader.yaml", [](const std::string& path) -> std::shared_ptr<sdk::ModelLoader> {
            std::ifstream in(path);
            std::vector<std::string> variants;
            for (std::string line; std::getline(in, line);) {
              if (line == "fail") throw Error(path + ": cannot import");
              if (!line.empty()) variants.push_back(line);
            }
            return std::make_shared<LinesLoader>(std::move(variants));
          }};
}

class FrontendDiscovery : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("meshtest-frontends-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& relative, const std::string& text) const {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  // Discovery of the root with the lines frontend registered.
  discovery::Discovery discover_with_lines() const {
    frontends::FrontendRegistry registry;
    registry.add(lines_frontend());
    return discovery::discover({root_.string()}, registry);
  }
  fs::path root_;
};

TEST_F(FrontendDiscovery, DeclarativeLoaderReachesItsFrontend) {
  write("lines/onnx/loader.yaml", "small\nlarge\n");
  const discovery::Discovery d = discover_with_lines();
  ASSERT_TRUE(d.failures.empty()) << d.failures[0].error;
  ASSERT_EQ(d.loaders.size(), 1u);
  EXPECT_EQ(d.loaders[0].dir, "lines/onnx");
  EXPECT_EQ(d.loaders[0].path, (root_ / "lines/onnx/loader.yaml").string());
  ASSERT_EQ(d.loaders[0].variants.size(), 2u);
  EXPECT_EQ(d.loaders[0].variants[0].variant, "small");
  EXPECT_EQ(d.loaders[0].variants[1].variant, "large");
  EXPECT_EQ(d.loaders[0].variants[1].model, "lines");
}

TEST_F(FrontendDiscovery, FileNoFrontendReadsIsAReportedFailure) {
  write("lines/onnx/loader.yaml", "small\n");
  const discovery::Discovery d = discovery::discover({root_.string()}, frontends::FrontendRegistry{});
  EXPECT_TRUE(d.loaders.empty());
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_EQ(d.failures[0].dir, "lines/onnx");
  EXPECT_EQ(d.failures[0].error, (root_ / "lines/onnx/loader.yaml").string() +
                                     ": no frontend in this build reads loader.yaml files (frontends read: none)");
}

TEST_F(FrontendDiscovery, ImportErrorIsAReportedFailure) {
  write("broken/onnx/loader.yaml", "fail\n");
  write("lines/onnx/loader.yaml", "small\n");
  const discovery::Discovery d = discover_with_lines();
  ASSERT_EQ(d.loaders.size(), 1u);
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_EQ(d.failures[0].dir, "broken/onnx");
  EXPECT_NE(d.failures[0].error.find("cannot import"), std::string::npos) << d.failures[0].error;
}

TEST_F(FrontendDiscovery, TwoLoaderFilesInOneFolderAreAFailure) {
  write("lines/onnx/loader.yaml", "small\n");
  write("lines/onnx/loader.so", "");
  const discovery::Discovery d = discover_with_lines();
  EXPECT_TRUE(d.loaders.empty());
  // loader.so (sorted first) fails to open, loader.yaml is refused as the second loader file.
  ASSERT_EQ(d.failures.size(), 2u);
  const bool refused = d.failures[0].error == "loader folder 'lines/onnx' holds more than one loader file" ||
                       d.failures[1].error == "loader folder 'lines/onnx' holds more than one loader file";
  EXPECT_TRUE(refused) << d.failures[0].error << "\n" << d.failures[1].error;
}

TEST(FrontendRegistry, OneFrontendPerFileName) {
  frontends::FrontendRegistry registry;
  registry.add(lines_frontend());
  EXPECT_NE(registry.find("loader.yaml"), nullptr);
  EXPECT_EQ(registry.find("loader.json"), nullptr);
  frontends::Frontend other = lines_frontend();
  other.name = "other";
  EXPECT_THROW(registry.add(other), Error);
}

}  // namespace
}  // namespace meshtest
