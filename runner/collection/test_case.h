// One test case of the matrix: a loader variant x parallelism x run mode,
// with its expectation from test_config and its markers. Two special kinds:
// a loader that failed to load, and a placeholder for a planned model.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/test_config.h"
#include "discovery/discovery.h"

namespace meshtest::runner {

enum class Parallelism { SingleDevice, DataParallel, TensorParallel };
enum class RunMode { Inference, Training };

std::string_view parallelism_name(Parallelism p);  // "single_device", ...
std::string_view run_mode_name(RunMode m);         // "inference", "training"

struct TestCase {
  std::string id;  // <loader dir>-<variant>-<parallelism>-<run_mode>
  const discovery::DiscoveredLoader* loader = nullptr;  // null for a loader that failed to load
  sdk::ModelInfo info;
  Parallelism parallelism = Parallelism::SingleDevice;
  RunMode run_mode = RunMode::Inference;
  config::TestEntry expectation;  // defaults (UNSPECIFIED) when the config has no entry
  std::vector<std::string> markers;
  std::string loader_error;  // non-empty: this case reports a loader failure
  std::string loader_dir;
  bool placeholder = false;  // a PLACEHOLDER_MODELS entry: reported as skipped with its bring-up status
};

// "<dir>-<variant>-<parallelism>-<run_mode>" (the variant part is left out
// for a loader's single unnamed variant).
std::string make_test_id(const std::string& loader_dir, const std::string& variant, Parallelism p, RunMode m);

}  // namespace meshtest::runner
