// Expectations from test_config/**/*.yaml: per test id, the expected status
// and the thresholds of its checks, plus PLACEHOLDER_MODELS (planned models
// reported as NOT_STARTED). Every problem found while loading becomes a
// diagnostic "file:line:column: message" (1-based); loading goes on so all
// problems are reported in one pass.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.h"
#include "config/test_status.h"

namespace meshtest::config {

struct Override;

struct TestEntry {
  TestStatus status = TestStatus::Unspecified;
  std::string reason;
  std::optional<BringupStatus> bringup_status;
  std::optional<double> required_pcc;
  std::optional<bool> assert_pcc;
  std::optional<double> required_atol;
  std::optional<bool> assert_atol;
  std::optional<bool> assert_allclose;
  std::optional<double> allclose_rtol;
  std::optional<double> allclose_atol;
  std::optional<bool> assert_scale;
  std::optional<double> scale_tolerance;
  // Op-level golden as a check (runner/pipeline/op_golden.h): the case fails
  // when a device op's local result is past these per-op thresholds.
  std::optional<bool> op_golden;
  std::optional<double> op_required_pcc;
  std::optional<double> op_scale_tolerance;
  std::optional<double> op_max_ulp;
  std::optional<bool> autodiff_check;     // training: the compiler's backward graph on the CPU reference
  std::optional<double> autodiff_rel_l2;  // its gradients' largest relative L2 error  // elementwise ops' per-element bound in bf16 ulp
  std::vector<std::string> markers;
  std::vector<std::string> supported_archs;  // empty: the defaults (n150, p150)
  std::optional<int64_t> batch_size;
  std::optional<int64_t> seq_len;
  std::optional<int> optimization_level;  // 0, 1, 2
  std::optional<bool> enable_weight_bfp8_conversion;
  std::optional<std::string> math_fidelity;  // LoFi | HiFi2 | HiFi3 | HiFi4
  std::optional<std::string> execution_pass;  // FORWARD | BACKWARD
  std::vector<std::string> filechecks;        // FileCheck pattern files run against --serialize dumps
  std::optional<double> timeout_seconds;      // meshtest's own (`timeout`): per-case deadline
  bool flaky = false;                         // meshtest's own: failures do not fail the run
  // run --emitc: the generated program must match the device bit for bit
  // (unset or true) or by PCC (false); YAML codegen_assert_exact, or its
  // other runners' name emitpy_assert_exact.
  std::optional<bool> codegen_assert_exact;
  std::vector<Override> arch_overrides;       // as written; see config/overrides.h
  std::vector<Override> backend_overrides;    // as written; see config/overrides.h
  std::vector<Override> emitc_overrides;      // none or one block (named "emitc"); see config/overrides.h
  SourceLocation defined_at;                  // the id's key
  // Field name (as in YAML) -> where its value is written. Only fields the
  // YAML sets appear; after resolve_overrides, overridden fields point into
  // the arch_overrides, backend_overrides or emitc_overrides block.
  std::map<std::string, SourceLocation> sources;
  // Every field, locations included (`meshtest changed` compares entries with their locations blanked).
  bool operator==(const TestEntry&) const = default;
};

// One block of arch_overrides.<arch>, backend_overrides.<backend> or
// emitc_overrides: the fields set here (those in fields.sources) replace the
// entry's own when the run targets `name` (config/overrides.h).
struct Override {
  std::string name;  // the arch or backend; "emitc" for emitc_overrides
  TestEntry fields;
  SourceLocation defined_at;
  bool operator==(const Override&) const = default;
};

// A planned model without a loader yet: PLACEHOLDER_MODELS.<name>. The
// runner reports it as a skipped case with its bring-up status (NOT_STARTED
// unless the YAML says otherwise).
struct Placeholder {
  std::string name;  // as written, e.g. "meta-llama/Llama-3.1-405B"
  TestEntry entry;   // bringup_status and reason only
  BringupStatus bringup() const { return entry.bringup_status.value_or(BringupStatus::NotStarted); }
};

// "placeholder/<name in lower case, blanks as _>": the id of a placeholder's case.
std::string placeholder_test_id(std::string_view name);

struct TestConfig {
  std::map<std::string, TestEntry> entries;         // test id -> entry
  std::map<std::string, Placeholder> placeholders;  // placeholder_test_id -> placeholder
  std::vector<std::string> files;                   // loaded, in load order
  const TestEntry* find(const std::string& test_id) const {
    auto it = entries.find(test_id);
    return it == entries.end() ? nullptr : &it->second;
  }
};

// The failure classes file (reports/failure_classes.h) lives in the
// test_config folder but is no test_config file.
inline constexpr const char* kFailureReasonsFileName = "failure_reasons.yaml";
// ... or the folder of such files.
inline constexpr const char* kFailureReasonsDirName = "failure_reasons";

// Whether a file in a test_config folder holds test_config entries: *.yaml or
// *.yml, but not kFailureReasonsFileName nor a file in a kFailureReasonsDirName folder.
bool is_test_config_file(const std::string& path);

// Loads and merges every test_config file under `path` (is_test_config_file,
// recursively, sorted by path), or the one file `path` names. A missing path
// gives an empty config.
TestConfig load_test_config(const std::string& path, std::vector<Diagnostic>& diagnostics);

// Adds one file's text to `config` (what load_test_config does per file).
void load_test_config_text(std::string_view text, const std::string& file, TestConfig& config,
                           std::vector<Diagnostic>& diagnostics);

}  // namespace meshtest::config
