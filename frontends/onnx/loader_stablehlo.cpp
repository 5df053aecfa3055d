// loader.yaml's StableHLO programs: import, then name the inputs.
#include "frontends/onnx/loader_stablehlo.h"

#include <map>

#include "core/error.h"
#include "frontends/stablehlo/stablehlo_import.h"

namespace meshtest::frontends::onnx_import {

LoaderProgram import_loader_program(const std::string& path, const std::set<std::string>& input_names) {
  stablehlo::StablehloImport imported = stablehlo::import_stablehlo_file(path);
  Graph& graph = imported.graph;
  std::map<std::string, std::string> renamed;  // argN -> loader.yaml name
  for (Param& p : graph.params) {
    if (p.kind != ParamKind::Input || input_names.count(p.name)) continue;
    const auto label = imported.labels.find(p.name);
    if (label == imported.labels.end() || input_names.count(label->second) == 0) continue;
    renamed[p.name] = label->second;
    p.name = label->second;
    graph.values[static_cast<size_t>(p.value)].name = label->second;
  }
  std::set<std::string> graph_inputs;
  for (const Param* p : graph.inputs()) graph_inputs.insert(p->name);
  for (const std::string& name : input_names) {
    if (graph_inputs.count(name) == 0) {
      std::string known;
      for (const std::string& g : graph_inputs) known += (known.empty() ? "" : ", ") + g;
      throw Error(path + ": loader.yaml input '" + name +
                  "' is neither an argument of the program (arg0, arg1, ...) nor an argument's label (inputs: " +
                  known + ")");
    }
  }
  LoaderProgram out{std::move(graph), {}, std::move(imported.mesh)};
  for (auto& [name, spec] : imported.shard_spec) {
    const auto it = renamed.find(name);
    out.shard_spec[it == renamed.end() ? name : it->second] = std::move(spec);
  }
  return out;
}

}  // namespace meshtest::frontends::onnx_import
