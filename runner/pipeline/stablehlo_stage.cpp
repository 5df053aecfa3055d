// The StableHLO stage of --serialize and `meshtest export --format stablehlo`.
#include "runner/pipeline/stablehlo_stage.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "frontends/stablehlo/stablehlo_writer.h"
#include "runner/pipeline/compile_phase.h"

namespace meshtest::runner {

namespace fs = std::filesystem;

namespace {

// The shard specs (mesh axis names per dim) as the writer's shardings.
frontends::stablehlo::WriteOptions write_options(const compiler::ShardingRequest* sharding) {
  frontends::stablehlo::WriteOptions options;
  if (sharding == nullptr) return options;
  options.mesh = sharding->mesh;
  for (const auto& [name, spec] : sharding->specs) {
    Sharding s;
    for (const auto& axes : spec) {
      std::vector<int> ids;
      for (const std::string& axis : axes) {
        const int id = sharding->mesh.axis_index(axis);
        if (id < 0) throw Error("shard spec of '" + name + "' names mesh axis '" + axis + "', not in the mesh");
        ids.push_back(id);
      }
      s.dims.push_back(ids);
    }
    options.shardings[name] = s;
  }
  return options;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw Error(path.string() + ": cannot write");
}

}  // namespace

void dump_stablehlo_stage(const Graph& graph, const compiler::ShardingRequest* sharding, const std::string& case_dir) {
  fs::create_directories(case_dir);
  try {
    write_text(fs::path(case_dir) / "frontend.stablehlo.mlir",
               frontends::stablehlo::write_stablehlo(graph, write_options(sharding)));
  } catch (const Error& e) {
    write_text(fs::path(case_dir) / "frontend.stablehlo.error.txt", std::string(e.what()) + "\n");
  }
}

void export_stablehlo(const std::string& test_id, const Graph& graph, const compiler::ShardingRequest* sharding,
                      const CompileSettings& settings) {
  const fs::path dir = settings.stablehlo_export_dir;
  fs::create_directories(dir);
  frontends::stablehlo::WriteOptions options = write_options(sharding);
  options.inline_weights = settings.stablehlo_inline_weights;
  options.composites = settings.stablehlo_composites;
  const std::string stem = sanitize_test_id(test_id);
  write_text(dir / (stem + ".mlir"), frontends::stablehlo::write_stablehlo(graph, options));
  if (!options.inline_weights)
    frontends::stablehlo::write_stablehlo_weights(graph, (dir / (stem + ".safetensors")).string());
}

}  // namespace meshtest::runner
