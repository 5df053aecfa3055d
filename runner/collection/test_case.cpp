// Names of parallelisms and run modes; test id construction.
#include "runner/collection/test_case.h"

namespace meshtest::runner {

std::string_view parallelism_name(Parallelism p) {
  switch (p) {
    case Parallelism::SingleDevice: return "single_device";
    case Parallelism::DataParallel: return "data_parallel";
    case Parallelism::TensorParallel: return "tensor_parallel";
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

}  // namespace meshtest::runner
