// libFuzzer target for the ONNX importer: arbitrary bytes as a model file
// (external data looked up in an empty folder), imported and verified. Any
// input must end in a graph or an Error, never a crash, hang or runaway
// allocation. Built as a fuzzer by scripts/fuzz (clang-14; ctest
// fuzz_short_onnx_import); every build replays the seed corpus
// (corpus/onnx_import/) through it (ctest fuzz_replay_onnx_import).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/graph.h"
#include "frontends/onnx/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string empty_dir = [] {
    const auto dir = std::filesystem::temp_directory_path() / "meshtest-onnx-fuzz-empty";
    std::filesystem::create_directories(dir);
    return dir.string();
  }();
  meshtest::frontends::onnx_import::ImportOptions options;
  for (const char* dim : {"N", "batch", "batch_size", "sequence", "seq_len", "H", "W"}) options.dims[dim] = 2;
  try {
    const meshtest::Graph graph =
        meshtest::frontends::onnx_import::import_onnx_bytes(std::string(reinterpret_cast<const char*>(data), size), empty_dir, options);
    meshtest::verify_graph(graph);
  } catch (const std::exception&) {
    // Reported as a result by the runner: what the importer must do.
  }
  return 0;
}
