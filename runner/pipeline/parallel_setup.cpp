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

StrategyMesh data_parallel_layout(const runtime::ArchProfile& arch) {
  Mesh mesh = data_parallel_mesh(arch);
  std::vector<std::string> axes = mesh.axis_names;
  return {std::move(mesh), std::move(axes), arch.chips};
}

bool is_past_input(const std::string& name) { return name.rfind(sdk::kPastKeyValuesPrefix, 0) == 0; }

bool splits_batch(Parallelism p) {
  return p == Parallelism::DataParallel || p == Parallelism::Fsdp || p == Parallelism::DataTensorParallel;
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

CaseLayout case_layout(const TestCase& c, const runtime::ArchProfile& arch) {
  CaseLayout layout;
  layout.test_case = &c;
  layout.arch = arch;
  if (c.parallelism != Parallelism::SingleDevice && c.loader != nullptr && arch.chips >= 2) {
    layout.mesh = strategy_mesh(c, arch, layout.why);
  }
  return layout;
}

std::optional<std::string> parallel_skip_reason(const CaseLayout& layout) {
  const TestCase& c = *layout.test_case;
  const runtime::ArchProfile& arch = layout.arch;
  if (c.parallelism == Parallelism::SingleDevice) return std::nullopt;
  const std::string name(parallelism_name(c.parallelism));
  if (arch.chips < 2) {
    return name + " needs a mesh of at least 2 chips; arch " + arch.name + " has " + std::to_string(arch.chips);
  }
  const bool loader_mesh_strategy =
      c.parallelism == Parallelism::TensorParallel || c.parallelism == Parallelism::DataTensorParallel;
  if (loader_mesh_strategy && c.loader != nullptr) {
    if (!layout.mesh) return layout.why;
    if (product(layout.mesh->mesh.shape) > arch.chips) {
      return name + " needs " + std::to_string(product(layout.mesh->mesh.shape)) + " chips; arch " + arch.name +
             " has " + std::to_string(arch.chips);
    }
  }
  return std::nullopt;
}

std::string planned_mesh_text(const CaseLayout& layout) { return layout.mesh ? layout.mesh->mesh.text() : "1x1"; }

std::optional<StrategyMesh> strategy_mesh(const TestCase& c, const runtime::ArchProfile& arch, std::string& why) {
  if (c.parallelism == Parallelism::SingleDevice) return std::nullopt;
  if (c.parallelism == Parallelism::DataParallel || c.parallelism == Parallelism::Fsdp) {
    return data_parallel_layout(arch);
  }
  const std::string name(parallelism_name(c.parallelism));
  std::string error;
  std::optional<sdk::MeshConfig> mesh = loader_mesh(c, arch.chips, error);
  if (!mesh) {
    why = error.empty() ? "the loader gives no mesh config for " + name
                        : "no " + name + " mesh for " + std::to_string(arch.chips) + " chips: " + error;
    return std::nullopt;
  }
  if (c.parallelism == Parallelism::TensorParallel) return StrategyMesh{{mesh->shape, mesh->axis_names}, {}, 1};
  // data x model: the loader's rows if it has some, else its mesh for half the chips, rows doubled.
  if (mesh->shape.size() == 2 && mesh->shape[0] < 2 && arch.chips % 2 == 0) {
    std::optional<sdk::MeshConfig> half = loader_mesh(c, arch.chips / 2, error);
    if (half && half->shape.size() == 2) {
      mesh = half;
      mesh->shape[0] *= 2;
    }
  }
  if (mesh->shape.size() != 2 || mesh->shape[0] < 2 || mesh->shape[1] < 2) {
    why = name + " needs a 2-D mesh of at least 2 data rows and 2 model columns; the loader's mesh for " +
          std::to_string(arch.chips) + " chips gives none";
    return std::nullopt;
  }
  const int64_t rows = mesh->shape[0];
  std::vector<std::string> data_axes = {mesh->axis_names[0]};
  return StrategyMesh{{mesh->shape, mesh->axis_names}, std::move(data_axes), rows};
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
  return data_parallel_inputs(graph, base, data_parallel_layout(arch));
}

DataParallelInputs data_parallel_inputs(const Graph& graph, const sdk::Inputs& base, const StrategyMesh& layout) {
  auto request = std::make_shared<ShardingRequest>();
  request->mesh = layout.mesh;
  const int64_t n = layout.ways;
  DataParallelInputs out;
  for (const Param* p : graph.inputs()) {
    const auto it = base.find(p->name);
    if (it == base.end() && is_past_input(p->name)) continue;  // the decode step's cache, joined later
    if (it == base.end()) throw Error("data_parallel: the loader gives no input '" + p->name + "'");
    const Shape& want = graph.type(p->value).shape;
    const Shape& have = it->second.shape();
    Shape repeated = have;
    if (!repeated.empty()) repeated[0] *= n;
    if (want == have) {
      out.inputs[p->name] = it->second;  // no batch dim: replicated
    } else if (!have.empty() && want == repeated) {
      out.inputs[p->name] = repeat_interleave(it->second, n);
      NamedPartitionSpec spec(want.size());
      spec[0] = layout.data_axes;
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

namespace {

// fsdp: every weight of rank >= 2 whose dim 0 the chips divide, split on dim 0 over every axis.
void add_fsdp_weight_specs(const Graph& graph, const StrategyMesh& layout, ShardingRequest& request) {
  const int64_t chips = product(layout.mesh.shape);
  for (const Param* p : graph.weights()) {
    const Shape& shape = graph.type(p->value).shape;
    if (shape.size() < 2 || shape[0] % chips != 0) continue;
    NamedPartitionSpec spec(shape.size());
    spec[0] = layout.mesh.axis_names;
    request.specs[p->name] = spec;
  }
}

}  // namespace

ParallelPlan prepare_parallel(const CaseLayout& case_layout, const sdk::Model& model, sdk::Inputs& inputs) {
  const TestCase& c = *case_layout.test_case;
  ParallelPlan plan;
  if (c.parallelism == Parallelism::SingleDevice) return plan;
  if (!case_layout.mesh) throw Error(case_layout.why.empty() ? "no mesh for the case on its arch" : case_layout.why);
  const StrategyMesh* layout = &*case_layout.mesh;
  std::shared_ptr<ShardingRequest> request;
  if (splits_batch(c.parallelism)) {
    DataParallelInputs dp = data_parallel_inputs(model.graph, inputs, *layout);
    inputs = std::move(dp.inputs);
    request = std::make_shared<ShardingRequest>(*dp.sharding);
  } else {
    request = std::make_shared<ShardingRequest>();
    request->mesh = layout->mesh;
  }
  if (c.parallelism == Parallelism::Fsdp) add_fsdp_weight_specs(model.graph, *layout, *request);
  if (c.parallelism == Parallelism::TensorParallel || c.parallelism == Parallelism::DataTensorParallel) {
    const std::optional<sdk::ShardSpec> spec = c.loader->loader->shard_spec(c.info.variant, model);
    if (!spec) {
      plan.skip_reason = std::string(parallelism_name(c.parallelism)) + ": the loader gives a mesh config but no shard spec";
      return plan;
    }
    for (const auto& [name, partition] : *spec) request->specs[name] = partition;
  }
  plan.sharding = std::move(request);
  return plan;
}

sdk::LoadOptions model_load_options(const CaseLayout& layout, const sdk::LoadOptions& base) {
  if (!splits_batch(layout.test_case->parallelism) || layout.arch.chips < 2 || !layout.mesh) return base;
  sdk::LoadOptions o = base;
  o.batch_size = base.batch_size.value_or(1) * layout.mesh->ways;
  return o;
}

}  // namespace meshtest::runner
