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
// tensor_parallel: the loader's mesh_config(variant, N) and shard_spec
//   (Megatron-style: column/row-parallel weights over the "model" axis).
// fsdp (LLM matrix): data_parallel's mesh, batch and inputs, and every
//   weight of rank >= 2 whose dim 0 the N chips divide split on dim 0 over
//   every mesh axis; the shard pass gathers a split weight where an op needs
//   it whole (all_gather before use, listed in sharding_fallbacks).
// data_tensor_parallel (LLM matrix): a 2-D mesh (data rows x "model"): the
//   loader's mesh for N chips if it has at least 2 rows, else its mesh for
//   N/2 chips with the rows doubled (n300-llmbox: 2x4 or 4x2 by the heads);
//   the loader's shard spec on "model", the batch enlarged by the rows and
//   split over the first axis. Needs at least 2 rows and 2 columns
//   (n300's two chips have no 2-D mesh: skipped there).
// A decode case's past_key_values.* inputs are not the loader's: they are
// left out here and joined later in the layout the prefill left its cache
// (decode_steps.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/sharding.h"
#include "discovery/loader_sdk.h"
#include "runner/collection/test_case.h"
#include "runtime/arch/arch_profile.h"

namespace meshtest::runner {


// Load options for the model of a data-parallel case (batch N*b).
sdk::LoadOptions data_parallel_load_options(const sdk::LoadOptions& base, const runtime::ArchProfile& arch);

// A strategy's mesh and how the batch is split on it: `ways` times over
// `data_axes` (none: the batch is not split).
struct StrategyMesh {
  Mesh mesh;
  std::vector<std::string> data_axes;
  int64_t ways = 1;
};

// The case's mesh on `arch`; nullopt for single_device, or with `why` set
// when the strategy has none there.
std::optional<StrategyMesh> strategy_mesh(const TestCase& test_case, const runtime::ArchProfile& arch,
                                          std::string& why);

// A case's mesh on an arch, resolved once per case (the loader is asked
// for its mesh config once): the phases below read it instead of asking again.
struct CaseLayout {
  const TestCase* test_case = nullptr;
  runtime::ArchProfile arch;
  std::optional<StrategyMesh> mesh;  // nullopt: one chip, or none on this arch (`why`)
  std::string why;
};
CaseLayout case_layout(const TestCase& test_case, const runtime::ArchProfile& arch);

// Why the case cannot run on its arch (it is then skipped), or nullopt.
std::optional<std::string> parallel_skip_reason(const CaseLayout& layout);

// The mesh the case's strategy asks for ("1x1": one chip, or none on the
// arch), so a case that fails before compiling still records it.
std::string planned_mesh_text(const CaseLayout& layout);

// Rows of dim 0 each repeated `n` times in a row; a 0-d tensor is returned as is.
Tensor repeat_interleave(const Tensor& t, int64_t n);

struct DataParallelInputs {
  sdk::Inputs inputs;       // what the enlarged model takes
  std::shared_ptr<const ShardingRequest> sharding;
};

// `base` inputs (loaded at batch b) for the enlarged `graph`; throws Error
// naming an input whose shape fits neither the base nor the enlarged batch.
DataParallelInputs data_parallel_inputs(const Graph& graph, const sdk::Inputs& base, const runtime::ArchProfile& arch);
// The same on `layout`'s mesh: batch inputs split `ways` times over its data axes.
DataParallelInputs data_parallel_inputs(const Graph& graph, const sdk::Inputs& base, const StrategyMesh& layout);

struct ParallelPlan {
  std::shared_ptr<const ShardingRequest> sharding;  // null: one chip
  std::string skip_reason;                                    // non-empty: skip the case
};

// For the case's parallelism: the sharding request, with `inputs` (loaded at
// the base batch) enlarged for data parallel. Single device: empty plan.
ParallelPlan prepare_parallel(const CaseLayout& layout, const sdk::Model& model, sdk::Inputs& inputs);

// Load options of the case's model (data parallel: the enlarged batch).
sdk::LoadOptions model_load_options(const CaseLayout& layout, const sdk::LoadOptions& base);

}  // namespace meshtest::runner
