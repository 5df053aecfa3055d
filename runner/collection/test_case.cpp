// Names of parallelisms and run modes; test id construction.
#include "runner/collection/test_case.h"

namespace meshtest::runner {

std::string_view parallelism_name(Parallelism p) {
  switch (p) {
    case Parallelism::SingleDevice: return "single_device";
    case Parallelism::DataParallel: return "data_parallel";
    case Parallelism::TensorParallel: return "tensor_parallel";
    case Parallelism::Fsdp: return "fsdp";
    case Parallelism::DataTensorParallel: return "data_tensor_parallel";
  }
  return "single_device";
}

std::string_view run_mode_name(RunMode m) { return m == RunMode::Inference ? "inference" : "training"; }

std::string make_test_id(const std::string& loader_dir, const std::string& variant, Parallelism p, RunMode m) {
  std::string id = loader_dir;
  if (!variant.empty()) id += "-" + variant;
  id += "-";
  id += parallelism_name(p);
  id += "-";
  id += run_mode_name(m);
  return id;
}

std::string_view lm_phase_name(sdk::LmPhase phase) {
  switch (phase) {
    case sdk::LmPhase::Prefill: return "prefill";
    case sdk::LmPhase::Decode: return "decode";
    case sdk::LmPhase::Full: return "full";
  }
  return "full";
}

std::string make_lm_test_id(const std::string& loader_dir, const std::string& variant, Parallelism p,
                            const LmAxes& axes) {
  std::string id = loader_dir;
  if (!variant.empty()) id += "-" + variant;
  id += "-" + std::string(parallelism_name(p)) + "-" + std::string(lm_phase_name(axes.phase)) + "-seq" +
        std::to_string(axes.seq_len) + "-batch" + std::to_string(axes.batch_size);
  return id;
}

}  // namespace meshtest::runner
