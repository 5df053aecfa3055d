// The torchvision exports of scripts/export_torchvision.py (generated into
// the build tree, $MESHTEST_ONNX_ZOO, by the ctest fixture onnx_zoo_export)
// through their loader.yaml: the CPU reference must match PyTorch's output
// (output_0.pb) within 1e-4 + 1e-3 * max|y|. Prints the max abs error and
// the import time of each model (the README's figures).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>

#include "frontends/onnx/onnx_loader.h"
#include "frontends/onnx/onnx_tensor.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest {
namespace {

namespace fs = std::filesystem;

std::string zoo_root() {
  const char* env = std::getenv("MESHTEST_ONNX_ZOO");
  return env != nullptr ? env : std::string(MESHTEST_BINARY_DIR) + "/onnx-zoo";
}

TEST(OnnxZoo, CpuReferenceMatchesPyTorch) {
  std::vector<fs::path> loaders;
  if (fs::is_directory(zoo_root())) {
    for (const auto& e : fs::recursive_directory_iterator(zoo_root())) {
      if (e.path().filename() == "loader.yaml") loaders.push_back(e.path());
    }
  }
  if (loaders.empty()) GTEST_SKIP() << "no exports under " << zoo_root() << " (scripts/export_torchvision.py makes them)";
  std::sort(loaders.begin(), loaders.end());
  for (const fs::path& path : loaders) {
    const auto loader = frontends::onnx_import::load_onnx_loader(path.string());
    for (const std::string& variant : loader->variants()) {
      const auto start = std::chrono::steady_clock::now();
      const sdk::Model model = loader->load_model(variant, {});
      const double import_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const sdk::Inputs inputs = loader->load_inputs(variant, {});
      const std::vector<Tensor> got = runtime::run_reference(model.graph, {inputs.begin(), inputs.end()});
      const Tensor want = frontends::onnx_import::read_tensor_file((path.parent_path() / "output_0.pb").string());
      ASSERT_EQ(got.at(0).shape(), want.shape()) << variant;
      double max_err = 0.0;
      double max_abs = 0.0;
      for (int64_t i = 0; i < want.numel(); ++i) {
        max_err = std::max(max_err, std::fabs(got[0].element_as_double(i) - want.element_as_double(i)));
        max_abs = std::max(max_abs, std::fabs(want.element_as_double(i)));
      }
      std::cout << variant << ": " << model.graph.ops.size() << " IR ops, import " << import_s
                << " s, max abs error vs PyTorch " << max_err << " (max |y| " << max_abs << ")\n";
      EXPECT_LE(max_err, 1e-4 + 1e-3 * max_abs) << variant;
    }
  }
}

}  // namespace
}  // namespace meshtest
