// The StableHLO stage of --serialize and `meshtest export --format stablehlo`.
#include "runner/pipeline/stablehlo_stage.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "frontends/stablehlo/stablehlo_writer.h"
#include "pjrt/case_program.h"
#include "runner/pipeline/compile_phase.h"

namespace meshtest::runner {

namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw Error(path.string() + ": cannot write");
}

}  // namespace

void dump_stablehlo_stage(const Graph& graph, const ShardingRequest* sharding, const std::string& case_dir) {
  fs::create_directories(case_dir);
  try {
    write_text(fs::path(case_dir) / "frontend.stablehlo.mlir",
               frontends::stablehlo::write_stablehlo(graph, pjrt::write_options_for(sharding)));
  } catch (const Error& e) {
    write_text(fs::path(case_dir) / "frontend.stablehlo.error.txt", std::string(e.what()) + "\n");
  }
}

void export_stablehlo(const std::string& test_id, const Graph& graph, const ShardingRequest* sharding,
                      const CompileSettings& settings) {
  const fs::path dir = settings.stablehlo_export_dir;
  fs::create_directories(dir);
  frontends::stablehlo::WriteOptions options = pjrt::write_options_for(sharding);
  options.inline_weights = settings.stablehlo_inline_weights;
  options.composites = settings.stablehlo_composites;
  const std::string stem = sanitize_test_id(test_id);
  write_text(dir / (stem + ".mlir"), frontends::stablehlo::write_stablehlo(graph, options));
  if (!options.inline_weights)
    frontends::stablehlo::write_stablehlo_weights(graph, (dir / (stem + ".safetensors")).string());
}

}  // namespace meshtest::runner
