// The shard pass's entry point (shard_graph), text forms of meshes and
// partition specs, and request fingerprints. Propagation and the per-family
// rules live in compiler/sharding/.
#include "compiler/sharding.h"

#include "compiler/graph_rewrite.h"
#include "compiler/sharding/collective_fusion.h"
#include "compiler/sharding/propagation.h"
#include "core/error.h"

namespace meshtest::compiler {

static std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

Mesh parse_mesh(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) throw ParseError("mesh '" + text + "': expected SHAPE:AXES, e.g. 2x4:rows,cols");
  Mesh mesh;
  for (const std::string& d : split(text.substr(0, colon), 'x')) {
    try {
      mesh.shape.push_back(std::stoll(d));
    } catch (const std::exception&) {
      throw ParseError("mesh '" + text + "': '" + d + "' is not a number");
    }
    if (mesh.shape.back() <= 0) throw ParseError("mesh '" + text + "': extents must be positive");
  }
  mesh.axis_names = split(text.substr(colon + 1), ',');
  if (mesh.axis_names.size() != mesh.shape.size()) {
    throw ParseError("mesh '" + text + "': " + std::to_string(mesh.shape.size()) + " extents but " +
                     std::to_string(mesh.axis_names.size()) + " axis names");
  }
  return mesh;
}

NamedPartitionSpec parse_partition_spec(const std::string& text) {
  NamedPartitionSpec spec;
  for (const std::string& dim : split(text, ',')) {
    if (dim.empty()) throw ParseError("partition spec '" + text + "': empty entry (use _ for replicated)");
    spec.emplace_back();
    if (dim != "_") spec.back() = split(dim, '+');
  }
  return spec;
}

std::string ShardingPlan::fallbacks_text() const {
  std::string s;
  for (const std::string& f : fallbacks) s += (s.empty() ? "" : "; ") + f;
  return s;
}

ShardingPlan shard_graph(Graph& graph, const ShardingRequest& request) {
  if (request.mesh.shape.size() != request.mesh.axis_names.size() || request.mesh.size() <= 0) {
    throw CompileError("shard: mesh " + request.mesh.text() + " needs one name per axis");
  }
  ShardingPlan plan;
  Graph local = sharding::propagate_shardings(graph, request, plan);
  plan.collectives -= sharding::fuse_reduce_scatter(local);
  remove_dead_ops(local);  // global constant fills that every use re-made in its shard shape, merged all_reduces
  graph = std::move(local);
  return plan;
}

std::map<std::string, NamedPartitionSpec> output_partition_specs(const Graph& graph, const ShardingRequest& request) {
  Graph local = graph;
  const ShardingPlan plan = shard_graph(local, request);
  std::map<std::string, NamedPartitionSpec> specs;
  for (const GraphOutput& o : graph.outputs) {
    NamedPartitionSpec spec(graph.type(o.value).shape.size());
    const auto it = plan.outputs.find(o.name);
    if (it != plan.outputs.end()) {
      for (size_t d = 0; d < spec.size(); ++d) {
        for (int axis : it->second.dims[d]) spec[d].push_back(request.mesh.axis_names[static_cast<size_t>(axis)]);
      }
    }
    specs[o.name] = std::move(spec);
  }
  return specs;
}

NamedPartitionSpec output_partition_spec(const Graph& graph, const ShardingRequest& request, std::string_view output) {
  std::map<std::string, NamedPartitionSpec> specs = output_partition_specs(graph, request);
  const auto it = specs.find(std::string(output));
  if (it == specs.end()) throw CompileError("shard: the graph has no output '" + std::string(output) + "'");
  return it->second;
}

}  // namespace meshtest::compiler
