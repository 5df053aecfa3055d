// The StableHLO round trip on the built-in zoo: for every tiny single-device
// case in every run mode (inference, training's joint forward + backward
// graph, LLM prefill and decode), the graph the pipeline compiles is written
// as StableHLO (composites on, weights as arguments in the weights file),
// read back (parse + import), and both graphs run on the same inputs and
// weights on the CPU reference and on one simulated chip: every output must
// be bit-identical between the original and the read graph, on each side.
//
// The read graph's arguments take back the names their `meshtest.name`
// carries, and those the weights file holds become weights again (the
// device treats weights and inputs differently, so this is what "the same
// computation" means on the device).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/safetensors.h"
#include "frontends/stablehlo/mlir_parser.h"
#include "frontends/stablehlo/stablehlo_import.h"
#include "frontends/stablehlo/stablehlo_writer.h"
#include "runner/collection/collection.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/decode_steps.h"
#include "runner/pipeline/inference_steps.h"
#include "runner/pipeline/training_steps.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {
namespace {

namespace fs = std::filesystem;
namespace shlo = frontends::stablehlo;

const Collected& zoo() {
  static const std::unique_ptr<Collected> collected = [] {
    CommonOptions o;
    o.models_roots = {MESHTEST_MODELS_ROOT};
    o.selection.keyword = "tiny and single_device";
    return collect_cases(o, nullptr);
  }();
  if (!collected) throw std::runtime_error("collecting the zoo's tiny cases failed");
  return *collected;
}

// Empty when collecting fails (TinyZooRoundTrip.CoversEveryRunMode says so).
std::vector<std::string> tiny_case_ids() {
  std::vector<std::string> ids;
  try {
    for (const TestCase* c : zoo().selection.selected) ids.push_back(c->id);
  } catch (const std::exception&) {
  }
  return ids;
}

const TestCase& find_case(const std::string& id) {
  for (const TestCase* c : zoo().selection.selected) {
    if (c->id == id) return *c;
  }
  throw std::runtime_error("no case " + id);
}

// What a case compiles and what the device is fed, built as the pipeline
// builds them (case_pipeline.cpp: load, prepare, device graph, device inputs).
struct CaseProgram {
  Graph graph;
  std::map<std::string, Tensor> feeds;
};

CaseProgram case_program(const TestCase& c, const PipelineOptions& options) {
  const CasePlan plan = plan_case(c, options);
  const std::unique_ptr<RunModeSteps> steps =
      c.run_mode == RunMode::Training                   ? training_steps(c, options)
      : c.lm && c.lm->phase == sdk::LmPhase::Decode ? decode_steps(c, options, plan)
                                                         : inference_steps(c, options);
  LoadedCase loaded;
  const sdk::LoadOptions load_options = steps->load_options();
  loaded.model = c.loader->loader->load_model(c.info.variant, load_options);
  steps->model_loaded(loaded.model);
  loaded.inputs = c.loader->loader->load_inputs(c.info.variant, load_options);
  steps->inputs_prepared(loaded);
  CaseProgram program{steps->device_graph(loaded), {}};
  program.graph.materialize_weights();
  steps->before_execute();  // decode: the device's prefill makes the cache it is fed
  program.feeds = steps->device_inputs(loaded);
  return program;
}

// The read graph with the original's parameter and output names back: each
// argument takes its `meshtest.name`, those `weights` holds become weights
// with that data, and outputs are renamed by position.
Graph with_original_names(shlo::StablehloImport read, const Graph& original,
                          const std::map<std::string, Tensor>& weights) {
  Graph& g = read.graph;
  for (Param& p : g.params) {
    const auto label = read.labels.find(p.name);
    if (label == read.labels.end()) continue;
    p.name = label->second;
    g.values.at(static_cast<size_t>(p.value)).name = p.name;
    if (const auto w = weights.find(p.name); w != weights.end()) {
      p.kind = ParamKind::Weight;
      p.data = w->second;
    }
  }
  EXPECT_EQ(g.outputs.size(), original.outputs.size());
  for (size_t i = 0; i < g.outputs.size() && i < original.outputs.size(); ++i) g.outputs[i].name = original.outputs[i].name;
  verify_graph(g);
  return g;
}

std::string type_text(const Tensor& t) { return std::string(dtype_name(t.dtype())) + shape_to_string(t.shape()); }

// "" when every output has the same dtype, shape and bytes; else the first difference.
std::string bitwise_difference(const Graph& graph, const std::vector<Tensor>& want, const std::vector<Tensor>& got) {
  if (want.size() != got.size()) {
    return std::to_string(got.size()) + " outputs, expected " + std::to_string(want.size());
  }
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string name = graph.outputs.at(i).name;
    if (want[i].dtype() != got[i].dtype() || want[i].shape() != got[i].shape()) {
      return "output " + name + ": " + type_text(got[i]) + ", expected " + type_text(want[i]);
    }
    if (std::memcmp(want[i].raw_data(), got[i].raw_data(), want[i].nbytes()) != 0) {
      const std::vector<float> a = want[i].to_f32_vector();
      const std::vector<float> b = got[i].to_f32_vector();
      size_t differing = 0, first = a.size();
      for (size_t k = 0; k < a.size(); ++k) {
        if (std::memcmp(&a[k], &b[k], sizeof(float)) == 0) continue;
        if (differing++ == 0) first = k;
      }
      return "output " + name + ": " + std::to_string(differing) + " of " + std::to_string(a.size()) +
             " elements differ, first [" + std::to_string(first) + "] " + std::to_string(a[first]) + " vs " +
             std::to_string(b[first]);
    }
  }
  return "";
}

std::vector<Tensor> run_device(const Graph& graph, const std::map<std::string, Tensor>& feeds,
                               const config::TestEntry& entry) {
  CompileSettings settings;
  settings.use_cache = false;
  CompileTarget target;
  target.device = resolve_device_settings(settings, entry);
  const CompiledCase compiled = compile_graph(graph, settings, target);
  backend::MemoryStats stats;
  return compiled.backend->execute(*compiled.executable, feeds, stats);
}

// A scratch folder for one test's weights file, removed afterwards.
class StablehloRoundTrip : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("meshtest_stablehlo_roundtrip_" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
};

TEST_P(StablehloRoundTrip, ReadGraphRunsBitIdentically) {
  const TestCase& c = find_case(GetParam());
  const auto start = std::chrono::steady_clock::now();
  PipelineOptions options;
  options.compile.use_cache = false;
  const CaseProgram program = case_program(c, options);

  shlo::WriteOptions write;
  write.composites = true;
  const std::string text = shlo::write_stablehlo(program.graph, write);
  const std::string weights_file = (dir / "weights.safetensors").string();
  shlo::write_stablehlo_weights(program.graph, weights_file);
  const std::string file = sanitize_test_id(c.id) + ".mlir";
  const Graph read = with_original_names(shlo::import_stablehlo(shlo::parse_mlir(text, file), file), program.graph,
                                         read_safetensors(weights_file));

  const std::vector<Tensor> reference = runtime::run_reference(program.graph, program.feeds);
  EXPECT_EQ(bitwise_difference(program.graph, reference, runtime::run_reference(read, program.feeds)), "")
      << "CPU reference";
  const std::vector<Tensor> device = run_device(program.graph, program.feeds, c.expectation);
  EXPECT_EQ(bitwise_difference(program.graph, device, run_device(read, program.feeds, c.expectation)), "")
      << "simulated device";
  std::cout << c.id << ": " << program.graph.ops.size() << " ops -> " << read.ops.size() << " read, "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
}

// The parameterized test below sees the cases this finds: all four run modes.
TEST(TinyZooRoundTrip, CoversEveryRunMode) {
  std::set<std::string> modes;
  for (const TestCase* c : zoo().selection.selected) {
    modes.insert(c->lm ? (c->lm->phase == sdk::LmPhase::Decode ? "decode" : "prefill")
                       : std::string(run_mode_name(c->run_mode)));
  }
  EXPECT_EQ(modes, (std::set<std::string>{"decode", "inference", "prefill", "training"}));
  EXPECT_GE(tiny_case_ids().size(), 20u);
}

INSTANTIATE_TEST_SUITE_P(TinyZoo, StablehloRoundTrip, ::testing::ValuesIn(tiny_case_ids()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = sanitize_test_id(info.param);
                           for (char& ch : name) {
                             if (ch == '.' || ch == '-') ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace meshtest::runner
