// Skip rules, data-parallel batching and tensor-parallel specs of a case.
#include "runner/pipeline/parallel_setup.h"

#include "core/error.h"
#include "core/sharding.h"

namespace meshtest::runner {

namespace {

// The arch's mesh for data parallel: its own shape, axes named by position.
Mesh data_parallel_mesh(const runtime::ArchProfile& arch) {
  return {arch.mesh_shape, {"rows", "cols"}};
}

std::optional<sdk::MeshConfig> loader_mesh(const TestCase& c, int chips, std::string& error) {
  try {
    return c.loader->loader->mesh_config(c.info.variant, chips);
  } catch (const std::exception& e) {
    error = e.what();
    return std::nullopt;
  }
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t d : v) n *= d;
  return n;
}

}  // namespace

std::optional<std::string> parallel_skip_reason(const TestCase& c, const runtime::ArchProfile& arch) {
  if (c.parallelism == Parallelism::SingleDevice) return std::nullopt;
  const std::string name(parallelism_name(c.parallelism));
  if (arch.chips < 2) {
    return name + " needs a mesh of at least 2 chips; arch " + arch.name + " has " + std::to_string(arch.chips);
  }
  if (c.parallelism == Parallelism::TensorParallel && c.loader != nullptr) {
    std::string error;
    const std::optional<sdk::MeshConfig> mesh = loader_mesh(c, arch.chips, error);
    if (!mesh) {
      return error.empty() ? "the loader gives no mesh config for tensor_parallel"
                           : "no tensor_parallel mesh for " + std::to_string(arch.chips) + " chips: " + error;
    }
    if (product(mesh->shape) > arch.chips) {
      return "tensor_parallel needs " + std::to_string(product(mesh->shape)) + " chips; arch " + arch.name + " has " +
             std::to_string(arch.chips);
    }
  }
  return std::nullopt;
}

sdk::LoadOptions data_parallel_load_options(const sdk::LoadOptions& base, const runtime::ArchProfile& arch) {
  sdk::LoadOptions o = base;
  o.batch_size = base.batch_size.value_or(1) * arch.chips;
  return o;
}

Tensor repeat_interleave(const Tensor& t, int64_t n) {
  if (t.rank() == 0 || n == 1) return t;
  std::vector<const Tensor*> rows;
  std::vector<Tensor> slices;
  const int64_t r = t.dim(0);
  slices.reserve(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) slices.push_back(slice_block(t, 0, i, r));
  for (int64_t i = 0; i < r; ++i) {
    for (int64_t k = 0; k < n; ++k) rows.push_back(&slices[static_cast<size_t>(i)]);
  }
  if (rows.empty()) {
    Shape s = t.shape();
    s[0] = 0;
    return Tensor(t.dtype(), s);
  }
  return concat_blocks(rows, 0);
}

DataParallelInputs data_parallel_inputs(const Graph& graph, const sdk::Inputs& base, const runtime::ArchProfile& arch) {
  auto request = std::make_shared<compiler::ShardingRequest>();
  request->mesh = data_parallel_mesh(arch);
  const int64_t n = arch.chips;
  DataParallelInputs out;
  for (const Param* p : graph.inputs()) {
    const auto it = base.find(p->name);
    if (it == base.end()) throw Error("data_parallel: the loader gives no input '" + p->name + "'");
    const Shape& want = graph.type(p->value).shape;
    const Shape& have = it->second.shape();
    Shape repeated = have;
    if (!repeated.empty()) repeated[0] *= n;
    if (want == have) {
      out.inputs[p->name] = it->second;  // no batch dim: replicated
    } else if (!have.empty() && want == repeated) {
      out.inputs[p->name] = repeat_interleave(it->second, n);
      compiler::NamedPartitionSpec spec(want.size());
      spec[0] = request->mesh.axis_names;
      request->specs[p->name] = spec;
    } else {
      throw Error("data_parallel: input '" + p->name + "' is " + shape_to_string(have) + " at the base batch but " +
                  shape_to_string(want) + " in the model for " + std::to_string(n) + " chips");
    }
  }
  for (const auto& [name, t] : base) {
    if (!out.inputs.count(name)) out.inputs[name] = t;
  }
  out.sharding = std::move(request);
  return out;
}

std::shared_ptr<const compiler::ShardingRequest> tensor_parallel_sharding(const TestCase& c, const sdk::Model& model,
                                                                          const runtime::ArchProfile& arch) {
  std::string error;
  const std::optional<sdk::MeshConfig> mesh = loader_mesh(c, arch.chips, error);
  if (!mesh) throw Error("tensor_parallel: the loader gives no mesh config" + (error.empty() ? "" : ": " + error));
  const std::optional<sdk::ShardSpec> spec = c.loader->loader->shard_spec(c.info.variant, model);
  if (!spec) return nullptr;
  auto request = std::make_shared<compiler::ShardingRequest>();
  request->mesh = {mesh->shape, mesh->axis_names};
  for (const auto& [name, partition] : *spec) request->specs[name] = partition;
  return request;
}

ParallelPlan prepare_parallel(const TestCase& c, const sdk::Model& model, sdk::Inputs& inputs,
                              const runtime::ArchProfile& arch) {
  ParallelPlan plan;
  if (c.parallelism == Parallelism::DataParallel) {
    DataParallelInputs dp = data_parallel_inputs(model.graph, inputs, arch);
    inputs = std::move(dp.inputs);
    plan.sharding = std::move(dp.sharding);
  } else if (c.parallelism == Parallelism::TensorParallel) {
    plan.sharding = tensor_parallel_sharding(c, model, arch);
    if (!plan.sharding) plan.skip_reason = "tensor_parallel: the loader gives a mesh config but no shard spec";
  }
  return plan;
}

sdk::LoadOptions model_load_options(const TestCase& c, const sdk::LoadOptions& base, const runtime::ArchProfile& arch) {
  return c.parallelism == Parallelism::DataParallel ? data_parallel_load_options(base, arch) : base;
}

}  // namespace meshtest::runner
