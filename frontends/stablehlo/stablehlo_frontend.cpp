// The `*.mlir` frontend: a StableHLO program as a loader (import, inputs
// from the tensor file beside it or random, the CPU reference checked
// against the expected values the case carries).
#include "frontends/stablehlo/stablehlo_frontend.h"

#include <filesystem>
#include <memory>
#include <mutex>

#include "core/error.h"
#include "core/rng.h"
#include "core/safetensors.h"
#include "frontends/mtir/mtir_frontend.h"
#include "frontends/stablehlo/stablehlo_checks.h"
#include "frontends/stablehlo/stablehlo_import.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::frontends {

namespace {

namespace fs = std::filesystem;
using stablehlo::CheckOutcome;

// `<stem><suffix>` beside `path`, when it exists.
std::string beside(const std::string& path, const std::string& suffix) {
  fs::path p(path);
  p.replace_extension();
  const std::string candidate = p.string() + suffix;
  return fs::exists(candidate) ? candidate : "";
}

class StablehloLoader : public sdk::ModelLoader {
 public:
  explicit StablehloLoader(std::string path)
      : path_(std::move(path)),
        program_(std::make_shared<stablehlo::StablehloImport>(stablehlo::import_stablehlo_file(path_))),
        inputs_path_(beside(path_, ".safetensors")),
        expected_path_(beside(path_, ".expected.safetensors")) {}

  std::vector<std::string> variants() const override { return {}; }

  sdk::ModelInfo info(std::string_view) const override {
    sdk::ModelInfo info;
    info.model = fs::path(path_).stem().string();
    info.task = "stablehlo_program";
    info.source = "stablehlo";
    info.framework = "stablehlo";
    return info;
  }

  sdk::Model load_model(std::string_view, const sdk::LoadOptions&) const override { return {program_->graph}; }

  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions&) const override {
    const Graph& graph = program_->graph;
    sdk::Inputs inputs = random_inputs(graph, hash_seed(fs::path(path_).filename().string()));
    bool all_from_file = true;
    const std::map<std::string, Tensor> file =
        inputs_path_.empty() ? std::map<std::string, Tensor>{} : read_safetensors(inputs_path_);
    for (const Param* p : graph.inputs()) {
      auto it = file.find(p->name);
      // What `meshtest export` writes: weights under their meshtest names,
      // the arguments' `meshtest.name` labels.
      if (const auto label = program_->labels.find(p->name); it == file.end() && label != program_->labels.end()) {
        it = file.find(label->second);
      }
      if (it == file.end()) {
        all_from_file = false;
        continue;
      }
      const TensorType& t = graph.type(p->value);
      inputs[p->name] = fit_declared(inputs_path_, "input", p->name, it->second, t.dtype, t.shape);
    }
    check_reference_once(inputs, all_from_file);
    return inputs;
  }

  std::optional<sdk::MeshConfig> mesh_config(std::string_view, int num_devices) const override {
    const sdk::MeshConfig& mesh = program_->mesh;
    if (mesh.shape.empty()) return std::nullopt;
    int64_t chips = 1;
    for (int64_t d : mesh.shape) chips *= d;
    if (chips != num_devices) return std::nullopt;
    return mesh;
  }

  std::optional<sdk::ShardSpec> shard_spec(std::string_view, const sdk::Model&) const override {
    if (program_->shard_spec.empty()) return std::nullopt;
    return program_->shard_spec;
  }

 private:
  // The reference's outputs against the expected values the case carries;
  // throws the first disagreement. Runs once per loader.
  void check_reference_once(const sdk::Inputs& inputs, bool all_inputs_from_file) const {
    const bool use_checks = all_inputs_from_file && !program_->checks.empty();
    if (!expected_path_.empty() && !all_inputs_from_file) {
      throw Error(expected_path_ + ": expected outputs need the inputs they were computed from, and " +
                  (inputs_path_.empty() ? "there is no tensor file of inputs beside " + path_
                                        : inputs_path_ + " lacks some of arg0, arg1, ..."));
    }
    if (!use_checks && expected_path_.empty()) return;
    std::call_once(checked_, [&] {
      const Graph& graph = program_->graph;
      const std::map<std::string, Tensor> got = stablehlo::run_reference_in_program_types(graph, inputs);
      std::vector<CheckOutcome> outcomes;
      if (use_checks) outcomes = stablehlo::evaluate_checks(program_->checks, got);
      if (!expected_path_.empty()) {
        for (const auto& [name, want] : read_safetensors(expected_path_)) {
          const auto it = got.find(name);
          if (it == got.end()) {
            outcomes.push_back({false, expected_path_ + " holds '" + name + "', which the program does not output"});
            continue;
          }
          outcomes.push_back(stablehlo::check_framework_output(it->second, want, "expected " + name));
        }
      }
      for (const CheckOutcome& o : outcomes) {
        if (!o.passed && failure_.empty()) {
          failure_ = path_ + ": the CPU reference disagrees with the program's expected values: " + o.message;
        }
      }
    });
    if (!failure_.empty()) throw Error(failure_);
  }

  std::string path_;
  std::shared_ptr<const stablehlo::StablehloImport> program_;
  std::string inputs_path_;
  std::string expected_path_;
  mutable std::once_flag checked_;
  mutable std::string failure_;
};

}  // namespace

Frontend stablehlo_frontend() {
  return {"stablehlo", kStablehloFilePattern,
          [](const std::string& path) { return std::make_shared<StablehloLoader>(path); }};
}

}  // namespace meshtest::frontends
