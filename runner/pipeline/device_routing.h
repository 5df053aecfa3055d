// The golden follows the device's routing (mixture-of-experts top-k,
// `topk_mask`). A discrete choice is discontinuous: where two experts'
// probabilities lie closer than bf16 can tell apart (the device rounds them
// to 8 significant bits), the device may pick the other expert, and that
// token's output then differs by a whole expert's contribution; over 32
// layers such flips, each one honest, pull a whole model's PCC far below any
// threshold. So for a model with topk_mask ops the golden runs after the
// device and, at each topk_mask, takes the device's selection instead of its
// own, after three checks that keep a wrong device from hiding behind it:
//   1. on every chip, the device's mask must be exactly the top-k of the
//      device's own operand (the selection kernel itself is right);
//   2. the router probabilities (the op's operand) are compared with the
//      golden's by PCC under the case's required_pcc (the record's outputs
//      of kind "router"), so a router that drifted cannot choose for both;
//   3. the model's outputs are then compared as always: every other kernel
//      on the path of the chosen experts is checked.
// The record counts the choices (`routing_rows`) and those where the golden's
// own top-k differed and it followed the device (`routing_followed`).
// Inference, training (its forward, and the autodiff check's run of the
// joint graph) and decode (its prefill and its decode step, each following
// the device's own run of it).
// A mask split across chips (data parallel: each chip routes its own rows)
// is assembled first: the shards are split along one dim, and each chip's
// block is the one of the golden's operand its own operand is nearest to
// (an honest chip's tokens match one block by far; a misplaced one fails
// check 2); chips holding the same block (replicas) must agree.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"
#include "comparators/metrics.h"
#include "core/graph.h"
#include "runner/pipeline/run_mode_steps.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runner {

// Whether `graph` has discrete choices the golden follows (a topk_mask op).
bool has_device_routing(const Graph& graph);

// One topk_mask op as the golden saw it, after following the device.
struct RouterComparison {
  std::string name;         // the router's layer path ("model.layers.3.block_sparse_moe.gate") or "topk_mask #k"
  Tensor device, golden;    // the op's operand (probabilities) on each side, f32
  int64_t rows = 0;         // choices made (every position but the chosen axis)
  int64_t followed = 0;     // rows where the golden's own top-k differed and it took the device's
  bool device_mask_used = false;  // false: the device's shards could not be placed (the golden chose)
};

class DeviceRouting {
 public:
  // `name_prefix` goes before every router's name ("prefill ": a decode
  // case's prefill, whose routers have the decode step's names).
  explicit DeviceRouting(std::string name_prefix = "") : name_prefix_(std::move(name_prefix)) {}

  // Device side (a backend::OpObserver, chips may call it concurrently):
  // keeps every chip's topk_mask operand and result of the first execution,
  // and checks each mask against the top-k of the same chip's operand.
  void observe(const backend::OpExecution& e);

  // Golden side: a run_reference hook that follows the device's masks (chip
  // 0's, matched to the graph's topk_mask ops in order: each layer's router
  // reads the previous layer's output, so their order is fixed) and records
  // a RouterComparison per op. Stops observe() from keeping more. A second
  // hook (`record` false: a training case's autodiff check, which runs the
  // compiler's joint graph on the reference) follows the same masks and
  // leaves the comparisons of the first.
  runtime::ReferenceOpHook golden_hook(const Graph& graph, bool record = true);

  // After the golden ran: one entry per topk_mask op of the graph.
  const std::vector<RouterComparison>& routers() const { return routers_; }
  // Why the device's routing is wrong on its own terms (check 1), or why it
  // could not be matched to the graph; empty when neither.
  const std::string& device_failure() const { return device_failure_; }

 private:
  struct Kept {
    int chip = 0;
    size_t index = 0;
    std::string origin;
    Tensor operand, mask;  // f32
  };
  struct DeviceSide {
    Tensor operand, mask;  // whole, f32
  };
  // The device's whole operand and mask of topk_mask op `ordinal`, from the
  // chips' shards placed by `golden` (the golden's operand); nullopt when
  // they cannot be placed.
  std::optional<DeviceSide> device_side(size_t ordinal, const Tensor& golden);

  std::string name_prefix_;
  std::mutex mutex_;
  bool frozen_ = false;
  std::vector<Kept> kept_;
  std::string device_failure_;
  // Every chip's, each in program order (golden_hook): [chip][ordinal].
  std::vector<std::vector<const Kept*>> by_chip_;
  std::vector<RouterComparison> routers_;
};

// The router comparisons as the record's outputs (kind "router") and the
// first failing one's message (empty when all pass): PCC against the case's
// required_pcc.
struct RouterVerdict {
  std::vector<comparators::OutputMetrics> metrics;
  std::string failure;
};
RouterVerdict compare_routers(const std::vector<RouterComparison>& routers, const comparators::ComparisonConfig& config);

// A case's verdict with the routing checks added: the device's own top-k
// (check 1), then the routers' probabilities as outputs of kind "router"
// (check 2); the outputs' verdict stands only when both hold.
void add_routing(const DeviceRouting& routing, const comparators::ComparisonConfig& config, CaseVerdict& verdict);

}  // namespace meshtest::runner
