// How a case's parallelism maps onto the arch's chips: whether it can run at
// all (else a skip reason), the mesh and partition specs the compiler's shard
// pass gets, and for data parallel the enlarged batch.
//
// data_parallel: the model is built for batch N*b (N = the arch's chips, b =
//   the case's batch, default 1); every input the enlarged model expects N
//   times larger along dim 0 is the loaded input repeated along dim 0
//   (repeat_interleave: rows a, b -> a, a, b, b) and split on dim 0 over
//   every mesh axis; other inputs (0-d, tables without a batch dim) and all
//   weights are replicated. The CPU golden runs on the same enlarged batch.
// tensor_parallel: the loader's mesh_config(variant, N) and shard_spec.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "compiler/sharding.h"
#include "discovery/loader_sdk.h"
#include "runner/collection/test_case.h"
#include "runtime/arch/arch_profile.h"

namespace meshtest::runner {

// Why `test_case` cannot run on `arch` (it is then skipped), or nullopt.
std::optional<std::string> parallel_skip_reason(const TestCase& test_case, const runtime::ArchProfile& arch);

// Load options for the model of a data-parallel case (batch N*b).
sdk::LoadOptions data_parallel_load_options(const sdk::LoadOptions& base, const runtime::ArchProfile& arch);

// Rows of dim 0 each repeated `n` times in a row; a 0-d tensor is returned as is.
Tensor repeat_interleave(const Tensor& t, int64_t n);

struct DataParallelInputs {
  sdk::Inputs inputs;       // what the enlarged model takes
  std::shared_ptr<const compiler::ShardingRequest> sharding;
};

// `base` inputs (loaded at batch b) for the enlarged `graph`; throws Error
// naming an input whose shape fits neither the base nor the enlarged batch.
DataParallelInputs data_parallel_inputs(const Graph& graph, const sdk::Inputs& base, const runtime::ArchProfile& arch);

// The loader's mesh and shard spec for `model` on `arch`; nullptr when the
// loader has no shard spec (the case is skipped), Error when it has no mesh.

std::shared_ptr<const compiler::ShardingRequest> tensor_parallel_sharding(const TestCase& test_case,
                                                                          const sdk::Model& model,
                                                                          const runtime::ArchProfile& arch);

struct ParallelPlan {
  std::shared_ptr<const compiler::ShardingRequest> sharding;  // null: one chip
  std::string skip_reason;                                    // non-empty: skip the case
};

// For the case's parallelism: the sharding request, with `inputs` (loaded at
// the base batch) enlarged for data parallel. Single device: empty plan.
ParallelPlan prepare_parallel(const TestCase& test_case, const sdk::Model& model, sdk::Inputs& inputs,
                              const runtime::ArchProfile& arch);

// Load options of the case's model (data parallel: the enlarged batch).
sdk::LoadOptions model_load_options(const TestCase& test_case, const sdk::LoadOptions& base,
                                    const runtime::ArchProfile& arch);

}  // namespace meshtest::runner
