// --save-tensors DIR: a failed case's tensors as safetensors files under
// DIR/<sanitized test id>/, one file per kind (inputs, golden, device, and
// for training the gradients and updated weights), tensors named as in the
// graph. The run mode says which tensors it has (RunModeSteps::tensors_to_save).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace meshtest::runner {

using TensorFile = std::map<std::string, Tensor>;        // tensor name -> tensor
using SavedTensors = std::map<std::string, TensorFile>;  // file stem ("golden") -> its tensors

// names[i] -> tensors[i]; a tensor past the names is called "output_<i>".
TensorFile named_tensors(const std::vector<std::string>& names, const std::vector<Tensor>& tensors);

// Writes every non-empty file of `files` as DIR/<sanitized id>/<stem>.safetensors
// (bfp8_b tensors decoded to f32, every other dtype kept) and returns the
// folder; throws meshtest::Error when a file cannot be written.
std::string save_case_tensors(const std::string& dir, const std::string& test_id, const SavedTensors& files);

}  // namespace meshtest::runner
