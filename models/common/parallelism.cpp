// Mesh config and name-rule shard spec helpers.
#include "models/common/parallelism.h"

#include "core/error.h"

namespace meshtest::models {

sdk::MeshConfig heads_mesh(int64_t num_heads, int num_devices, std::string_view loader) {
  const std::string where = std::string(loader) + ": ";
  if (num_devices <= 0) throw Error(where + "a mesh needs at least one device, got " + std::to_string(num_devices));
  if (num_heads % num_devices == 0) return {{1, num_devices}, {"batch", kModelAxis}};
  if (num_devices % 2 == 0 && num_heads % (num_devices / 2) == 0) {
    return {{2, num_devices / 2}, {"batch", kModelAxis}};
  }
  // Fewer heads than that: the widest "model" axis that splits them, the
  // remaining rows of the mesh replicate (e.g. 2 heads on 8 chips: 4x2).
  for (int m = num_devices / 2; m >= 2; --m) {
    if (num_devices % m == 0 && num_heads % m == 0) return {{num_devices / m, m}, {"batch", kModelAxis}};
  }
  throw Error(where + "no mesh for " + std::to_string(num_devices) + " devices: " + std::to_string(num_heads) +
              " attention heads share no divisor >= 2 with " + std::to_string(num_devices) +
              ", so the \"model\" axis cannot split the heads evenly");
}

sdk::PartitionSpec column_parallel_weight() { return {{kModelAxis}, {}}; }
sdk::PartitionSpec column_parallel_bias() { return {{kModelAxis}}; }
sdk::PartitionSpec row_parallel_weight() { return {{}, {kModelAxis}}; }
sdk::PartitionSpec column_parallel_weight_whole_mesh() { return {{"batch", kModelAxis}, {}}; }
sdk::PartitionSpec row_parallel_weight_whole_mesh() { return {{}, {"batch", kModelAxis}}; }
sdk::PartitionSpec conv1d_column_parallel_weight() { return {{}, {kModelAxis}}; }
sdk::PartitionSpec conv1d_row_parallel_weight() { return {{kModelAxis}, {}}; }

sdk::ShardSpec shard_by_rules(const Graph& graph, const std::vector<ShardRule>& rules) {
  sdk::ShardSpec spec;
  for (const Param* p : graph.weights()) {
    for (const ShardRule& rule : rules) {
      const std::string& n = p->name;
      if (n.size() >= rule.suffix.size() && n.compare(n.size() - rule.suffix.size(), rule.suffix.size(), rule.suffix) == 0) {
        spec[n] = rule.spec;
        break;
      }
    }
  }
  return spec;
}

}  // namespace meshtest::models
