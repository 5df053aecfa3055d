// The golden follows the device's top-k routing after checking it (device_routing.h).
#include "runner/pipeline/device_routing.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <optional>

#include "core/error.h"
#include "core/ops.h"
#include "core/sharding.h"

namespace meshtest::runner {

namespace {

Tensor as_f32(const Tensor& t) { return t.to(DType::F32); }

// Rows of a topk_mask result (every position but `axis`) whose selection
// differs between two masks of one shape.
struct RowCount {
  int64_t rows = 0;
  int64_t differing = 0;
};

// Rows of a topk_mask over `shape`: every position but the chosen axis.
struct RowLayout {
  int64_t n = 0, inner = 1, rows = 1;  // axis extent, stride of the axis, row count
};
RowLayout row_layout(const Shape& shape, int64_t axis_attr) {
  const int64_t axis = normalize_axis(axis_attr, static_cast<int64_t>(shape.size()));
  RowLayout l;
  l.n = shape[static_cast<size_t>(axis)];
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) l.inner *= shape[d];
  l.rows = outer * l.inner;
  return l;
}

RowCount differing_rows(const Tensor& a, const Tensor& b, int64_t axis_attr) {
  const RowLayout l = row_layout(a.shape(), axis_attr);
  const int64_t n = l.n, inner = l.inner;
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  RowCount count;
  count.rows = l.rows;
  for (int64_t row = 0; row < count.rows; ++row) {
    const int64_t base = (row / inner) * n * inner + row % inner;
    for (int64_t i = 0; i < n; ++i) {
      if (pa[base + i * inner] != pb[base + i * inner]) {
        ++count.differing;
        break;
      }
    }
  }
  return count;
}

double squared_distance(const Tensor& a, const Tensor& b) {
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  double sum = 0;
  for (int64_t i = 0; i < a.numel(); ++i) sum += (static_cast<double>(pa[i]) - pb[i]) * (static_cast<double>(pa[i]) - pb[i]);
  return sum;
}

// The layer path of the router feeding topk_mask op `index`: the first weight
// found walking back through its operands ("...gate.weight" -> "...gate").
std::string router_name(const Graph& graph, size_t index, size_t ordinal) {
  std::map<ValueId, size_t> producer;
  for (size_t i = 0; i < index; ++i) producer[graph.ops[i].output] = i;
  std::map<ValueId, const Param*> weight;
  for (const Param& p : graph.params) {
    if (p.kind == ParamKind::Weight) weight[p.value] = &p;
  }
  std::deque<ValueId> frontier(graph.ops[index].inputs.begin(), graph.ops[index].inputs.end());
  for (int steps = 0; !frontier.empty() && steps < 16; ++steps) {
    const ValueId v = frontier.front();
    frontier.pop_front();
    if (const auto w = weight.find(v); w != weight.end()) {
      std::string name = w->second->name;
      const std::string suffix = ".weight";
      if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        name.resize(name.size() - suffix.size());
      }
      return name;
    }
    if (const auto p = producer.find(v); p != producer.end()) {
      for (ValueId in : graph.ops[p->second].inputs) frontier.push_back(in);
    }
  }
  return "topk_mask #" + std::to_string(ordinal);
}

}  // namespace

bool has_device_routing(const Graph& graph) {
  return std::any_of(graph.ops.begin(), graph.ops.end(), [](const Op& op) { return op.kind == OpKind::TopkMask; });
}

void DeviceRouting::observe(const backend::OpExecution& e) {
  if (e.instr.kind != OpKind::TopkMask || e.operands.size() != 1) return;
  const auto already_kept = [&] {
    // Frozen once the golden ran; a later execution (perf) repeats an op: the first is kept.
    return frozen_ || std::any_of(kept_.begin(), kept_.end(),
                                  [&](const Kept& k) { return k.chip == e.chip && k.index == e.index; });
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (already_kept()) return;  // no copies, no check: perf executions stay cheap
  }
  Kept kept{e.chip, e.index, e.instr.origin, as_f32(*e.operands[0]), as_f32(e.result)};
  // Check 1: the mask is the top-k of the chip's own operand, exactly.
  const Tensor own = runtime::run_reference_op(Op{OpKind::TopkMask, {}, kNoValue, e.instr.attrs}, {kept.operand});
  const RowCount wrong = differing_rows(kept.mask, own, e.instr.attrs.get_int("axis"));
  std::lock_guard<std::mutex> lock(mutex_);
  if (already_kept()) return;
  if (wrong.differing > 0 && device_failure_.empty()) {
    device_failure_ = "device " + e.instr.origin + " on chip " + std::to_string(e.chip) + ": " +
                      std::to_string(wrong.differing) + " of " + std::to_string(wrong.rows) +
                      " rows select other entries than the top-" + std::to_string(e.instr.attrs.get_int("k")) +
                      " of its own operand";
  }
  kept_.push_back(std::move(kept));
}

runtime::ReferenceOpHook DeviceRouting::golden_hook(const Graph& graph, bool record) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    frozen_ = true;
  }
  if (!record) {
    return [this, ordinal = size_t{0}](size_t, const Op& op, const std::vector<Tensor>& operands,
                                       Tensor& result) mutable {
      if (op.kind != OpKind::TopkMask) return;
      if (std::optional<DeviceSide> device = device_side(ordinal++, operands.at(0))) result = std::move(device->mask);
    };
  }
  by_chip_.clear();
  for (const Kept& k : kept_) {
    if (static_cast<size_t>(k.chip) >= by_chip_.size()) by_chip_.resize(static_cast<size_t>(k.chip) + 1);
    by_chip_[static_cast<size_t>(k.chip)].push_back(&k);
  }
  if (by_chip_.empty()) by_chip_.resize(1);
  for (std::vector<const Kept*>& chip : by_chip_) {
    std::sort(chip.begin(), chip.end(), [](const Kept* a, const Kept* b) { return a->index < b->index; });
  }
  size_t graph_ops = 0;
  for (const Op& op : graph.ops) graph_ops += op.kind == OpKind::TopkMask ? 1 : 0;
  if (by_chip_[0].size() != graph_ops && device_failure_.empty()) {
    device_failure_ = "routing: the device ran " + std::to_string(by_chip_[0].size()) +
                      " topk_mask ops on chip 0, the model has " + std::to_string(graph_ops);
  }
  routers_.clear();
  return [this, &graph](size_t index, const Op& op, const std::vector<Tensor>& operands, Tensor& result) {
    if (op.kind != OpKind::TopkMask) return;
    const size_t ordinal = routers_.size();
    RouterComparison r;
    r.name = name_prefix_ + router_name(graph, index, ordinal);
    r.golden = operands.at(0);
    const int64_t axis = op.attrs.get_int("axis");
    r.rows = row_layout(result.shape(), axis).rows;
    if (std::optional<DeviceSide> device = device_side(ordinal, r.golden)) {
      const RowCount differ = differing_rows(result, device->mask, axis);
      r.followed = differ.differing;
      r.device = std::move(device->operand);
      r.device_mask_used = true;
      result = std::move(device->mask);
    }
    routers_.push_back(std::move(r));
  };
}

std::optional<DeviceRouting::DeviceSide> DeviceRouting::device_side(size_t ordinal, const Tensor& golden) {
  std::vector<const Kept*> shards;
  for (const std::vector<const Kept*>& chip : by_chip_) {
    if (ordinal < chip.size()) shards.push_back(chip[ordinal]);
  }
  if (shards.empty() || shards[0]->chip != 0) return std::nullopt;
  const Shape& whole = golden.shape();
  const Shape& part = shards[0]->operand.shape();
  if (part == whole) return DeviceSide{shards[0]->operand, shards[0]->mask};
  // Split along one dim into equal blocks: place each chip's shard.
  int64_t dim = -1;
  for (size_t d = 0; d < whole.size() && d < part.size(); ++d) {
    if (part[d] != whole[d]) dim = dim < 0 ? static_cast<int64_t>(d) : -2;
  }
  if (part.size() != whole.size() || dim < 0 || part[static_cast<size_t>(dim)] == 0 ||
      whole[static_cast<size_t>(dim)] % part[static_cast<size_t>(dim)] != 0) {
    return std::nullopt;
  }
  const int64_t blocks = whole[static_cast<size_t>(dim)] / part[static_cast<size_t>(dim)];
  std::vector<Tensor> golden_blocks;
  for (int64_t b = 0; b < blocks; ++b) golden_blocks.push_back(slice_block(golden, dim, b, blocks));
  std::vector<const Kept*> placed(static_cast<size_t>(blocks), nullptr);
  for (const Kept* shard : shards) {
    if (shard->operand.shape() != part) return std::nullopt;
    // The nearest blocks (several when blocks are equal, e.g. a batch of
    // repeated inputs): the first free one, else a replica of the first.
    std::vector<double> distance;
    for (const Tensor& block : golden_blocks) distance.push_back(squared_distance(shard->operand, block));
    const double nearest = *std::min_element(distance.begin(), distance.end());
    size_t best = golden_blocks.size();
    for (size_t b = 0; b < golden_blocks.size(); ++b) {
      if (distance[b] > nearest) continue;
      if (best == golden_blocks.size()) best = b;
      if (!placed[b]) {
        best = b;
        break;
      }
    }
    if (!placed[best]) {
      placed[best] = shard;
    } else if (squared_distance(placed[best]->mask, shard->mask) != 0 && device_failure_.empty()) {
      device_failure_ = "device " + shard->origin + ": chips " + std::to_string(placed[best]->chip) + " and " +
                        std::to_string(shard->chip) + " hold the same rows but select different entries";
    }
  }
  std::vector<const Tensor*> operands, masks;
  for (const Kept* p : placed) {
    if (!p) return std::nullopt;  // a block no chip holds
    operands.push_back(&p->operand);
    masks.push_back(&p->mask);
  }
  return DeviceSide{concat_blocks(operands, dim), concat_blocks(masks, dim)};
}

RouterVerdict compare_routers(const std::vector<RouterComparison>& routers,
                              const comparators::ComparisonConfig& config) {
  // PCC (and finiteness) only: each row of probabilities sums to 1, so its
  // L2 norm measures how peaked the row is, which drifts with the hidden
  // state as the ranking does (mixtral_8x7b: 1.023 at layer 21 of an honest
  // run), not a scaled kernel; atol and allclose would hold probabilities to
  // the outputs' absolute bounds.
  comparators::ComparisonConfig pcc_only;
  pcc_only.assert_pcc = true;
  pcc_only.required_pcc = config.required_pcc;
  pcc_only.assert_atol = false;
  pcc_only.assert_allclose = false;
  pcc_only.assert_scale = false;
  RouterVerdict v;
  for (const RouterComparison& r : routers) {
    if (!r.device_mask_used) continue;  // no whole device operand to compare with
    comparators::OutputMetrics m = comparators::compare_tensors(r.name, r.device, r.golden, pcc_only);
    if (!m.passed && v.failure.empty()) {
      v.failure = "router " + r.name + " (the probabilities its top-k chose from): " + m.failure;
    }
    v.metrics.push_back(std::move(m));
  }
  return v;
}

void add_routing(const DeviceRouting& routing, const comparators::ComparisonConfig& config, CaseVerdict& v) {
  const RouterVerdict routers = compare_routers(routing.routers(), config);
  for (const comparators::OutputMetrics& m : routers.metrics) {
    v.outputs.push_back({m.name, m.pcc, m.atol, m.rel_l2, m.passed, "router", m.norm_ratio, m.decided_by});
  }
  for (const RouterComparison& r : routing.routers()) {
    v.routing_rows += r.rows;
    v.routing_followed += r.followed;
  }
  const std::string failure = !routing.device_failure().empty() ? routing.device_failure() : routers.failure;
  if (!failure.empty() && v.passed) {
    v.passed = false;
    v.message = failure;
  }
}

}  // namespace meshtest::runner
