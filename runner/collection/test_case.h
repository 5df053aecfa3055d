// One test case of the matrix: a loader variant x parallelism x run mode,
// with its expectation from test_config and its markers. Two special kinds:
// a loader that failed to load, and a placeholder for a planned model. A
// causal LM also has LLM-matrix cases: variant x strategy x phase (prefill,
// decode) x sequence length x batch size (LmAxes).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/test_config.h"
#include "discovery/discovery.h"

namespace meshtest::runner {

// Fsdp and DataTensorParallel only in the LLM matrix (parallel_setup.h).
enum class Parallelism { SingleDevice, DataParallel, TensorParallel, Fsdp, DataTensorParallel };
enum class RunMode { Inference, Training };

std::string_view parallelism_name(Parallelism p);  // "single_device", ...
std::string_view run_mode_name(RunMode m);         // "inference", "training"

// An LLM-matrix case's extra axes (the loader's sdk::LmPhase, seq_len, batch_size).
struct LmAxes {
  sdk::LmPhase phase = sdk::LmPhase::Prefill;
  int64_t seq_len = 0;
  int64_t batch_size = 1;
};
std::string_view lm_phase_name(sdk::LmPhase phase);  // "prefill", "decode", "full"

struct TestCase {
  std::string id;  // <loader dir>-<variant>-<parallelism>-<run_mode>
  const discovery::DiscoveredLoader* loader = nullptr;  // null for a loader that failed to load
  sdk::ModelInfo info;
  Parallelism parallelism = Parallelism::SingleDevice;
  RunMode run_mode = RunMode::Inference;
  std::optional<LmAxes> lm;  // set: an LLM-matrix case (inference of one phase)
  config::TestEntry expectation;  // defaults (UNSPECIFIED) when the config has no entry
  std::vector<std::string> markers;
  std::string loader_error;  // non-empty: this case reports a loader failure
  std::string loader_dir;
  bool placeholder = false;  // a PLACEHOLDER_MODELS entry: reported as skipped with its bring-up status
};

// "<dir>-<variant>-<parallelism>-<run_mode>" (the variant part is left out
// for a loader's single unnamed variant).
std::string make_test_id(const std::string& loader_dir, const std::string& variant, Parallelism p, RunMode m);

// An LLM-matrix id: "<dir>-<variant>-<parallelism>-<phase>-seq<S>-batch<B>",
// e.g. llama/causal_lm/native-llama_tiny-tensor_parallel-decode-seq32-batch1.
std::string make_lm_test_id(const std::string& loader_dir, const std::string& variant, Parallelism p,
                            const LmAxes& axes);

}  // namespace meshtest::runner
