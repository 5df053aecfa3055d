// Writing a failed case's tensors (--save-tensors) with core's safetensors writer.
#include "runner/pipeline/saved_tensors.h"

#include <filesystem>

#include "core/safetensors.h"
#include "runner/pipeline/compile_phase.h"

namespace meshtest::runner {

TensorFile named_tensors(const std::vector<std::string>& names, const std::vector<Tensor>& tensors) {
  TensorFile file;
  for (size_t i = 0; i < tensors.size(); ++i) {
    file[i < names.size() ? names[i] : "output_" + std::to_string(i)] = tensors[i];
  }
  return file;
}

std::string save_case_tensors(const std::string& dir, const std::string& test_id, const SavedTensors& files) {
  const std::filesystem::path folder = std::filesystem::path(dir) / sanitize_test_id(test_id);
  std::filesystem::create_directories(folder);
  for (const auto& [stem, tensors] : files) {
    if (tensors.empty()) continue;
    TensorFile storable;
    for (const auto& [name, t] : tensors) storable[name] = t.dtype() == DType::BFP8_B ? t.to(DType::F32) : t;
    write_safetensors((folder / (stem + ".safetensors")).string(), storable);
  }
  return folder.string();
}

}  // namespace meshtest::runner
