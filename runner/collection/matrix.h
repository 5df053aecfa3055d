// Expands discovered loaders into the test matrix: every variant x supported
// parallelism x run mode, each with its config entry (arch_overrides,
// backend_overrides and emitc_overrides resolved for the target arch, backend
// and --emitc) and markers. Loader failures become one case each
// (id = the loader folder) that reports the error; PLACEHOLDER_MODELS become
// one case each (id = placeholder/<name>) reported as NOT_STARTED.
#pragma once

#include <string>
#include <vector>

#include "config/backend_names.h"
#include "config/test_config.h"
#include "discovery/discovery.h"
#include "runner/collection/test_case.h"

namespace meshtest::runner {

// The parallelisms and run modes this build can execute.
const std::vector<Parallelism>& supported_parallelisms();
const std::vector<RunMode>& supported_run_modes();

// The LLM matrix (docs/how-to/select-tests.md): for every variant whose task is
// nlp_causal_lm, besides its inference and training cases, one inference
// case per strategy x phase (prefill, decode) x sequence length x batch size;
// an LLM id in the YAML with other sequence lengths or batch sizes adds its case.
inline constexpr const char* kCausalLmTask = "nlp_causal_lm";
const std::vector<Parallelism>& lm_strategies();
const std::vector<int64_t>& lm_sequence_lengths();  // 32, 128
const std::vector<int64_t>& lm_batch_sizes();       // 1

// The axes an LLM id names after "<dir>-<variant>-" (e.g.
// "fsdp-decode-seq128-batch4"), or nullopt when it is not one.
struct LmIdTail {
  Parallelism parallelism;
  LmAxes axes;
};
std::optional<LmIdTail> parse_lm_id_tail(std::string_view tail);

// The arch a run targets unless it names one (--arch).
inline constexpr const char* kDefaultArch = "n150";

struct MatrixOptions {
  std::string arch = kDefaultArch;  // arch_overrides of this arch apply
  std::string backend = std::string(config::kDefaultBackendName);  // backend_overrides of this backend apply
  bool emitc = false;  // run --emitc: emitc_overrides apply
};

std::vector<TestCase> build_matrix(const discovery::Discovery& discovery, const config::TestConfig& config,
                                   const MatrixOptions& options = {});

// Markers of DESIGN.md §3 for a case whose id, info and expectation are set:
// run mode (an LLM-matrix case: its phase, prefill or decode, instead of
// inference; `megatron` too for tensor_parallel and data_tensor_parallel),
// parallelism, status, group, schedule (YAML markers `weekly` or
// `nightly`, else weekly for the generality group and nightly otherwise), supported archs ('-' also as '_'), bring-up status,
// flaky, YAML markers ('-' also as '_'). Sorted, unique.
std::vector<std::string> markers_for(const TestCase& test_case);

}  // namespace meshtest::runner
