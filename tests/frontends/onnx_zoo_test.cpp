// The torchvision exports of scripts/make_onnx_zoo (generated into the build
// tree, $MESHTEST_ONNX_ZOO, by the ctest fixture onnx_zoo_export) through
// their loader.yaml: the CPU reference must match both PyTorch's output
// (output_0.pb) and ONNX Runtime's (output_ort.pb) within 1e-4 + 1e-3 *
// max|y|. Prints the max abs errors and the import time of each model (the
// figures of docs/benchmarks.md).
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

// Largest |got - want| and largest |want|.
std::pair<double, double> max_errors(const Tensor& got, const Tensor& want) {
  double err = 0.0;
  double scale = 0.0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    err = std::max(err, std::fabs(got.element_as_double(i) - want.element_as_double(i)));
    scale = std::max(scale, std::fabs(want.element_as_double(i)));
  }
  return {err, scale};
}

TEST(OnnxZoo, CpuReferenceMatchesPyTorchAndOnnxRuntime) {
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
      std::cout << variant << ": " << model.graph.ops.size() << " IR ops, import " << import_s << " s";
      for (const char* reference : {"output_0.pb", "output_ort.pb"}) {
        const Tensor want = frontends::onnx_import::read_tensor_file((path.parent_path() / reference).string());
        ASSERT_EQ(got.at(0).shape(), want.shape()) << variant << " " << reference;
        const auto [err, scale] = max_errors(got[0], want);
        std::cout << ", max abs error vs " << reference << " " << err << " (max |y| " << scale << ")";
        EXPECT_LE(err, 1e-4 + 1e-3 * scale) << variant << " " << reference;
      }
      std::cout << "\n";
    }
  }
}

}  // namespace
}  // namespace meshtest
