// Collectives checked against their group's f32 reference (collective_check.h).
#include "runner/pipeline/collective_check.h"

#include <cmath>
#include <exception>

#include "runner/pipeline/op_check.h"
#include "runner/pipeline/op_golden.h"

namespace meshtest::runner {

namespace {

// The group's operands summed in f64, as f32.
Tensor group_sum(const std::vector<const Tensor*>& members) {
  const Shape& shape = members.front()->shape();
  std::vector<double> sum(static_cast<size_t>(shape_numel(shape)), 0.0);
  for (const Tensor* t : members) {
    const Tensor f = t->to(DType::F32);
    const float* p = f.data<float>();
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += static_cast<double>(p[i]);
  }
  Tensor out(DType::F32, shape);
  float* o = out.data<float>();
  for (size_t i = 0; i < sum.size(); ++i) o[i] = static_cast<float>(sum[i]);
  return out;
}

// Blocks joined along `dim`, in order.
Tensor joined(const std::vector<Tensor>& blocks, int64_t dim) {
  std::vector<const Tensor*> pointers;
  for (const Tensor& t : blocks) pointers.push_back(&t);
  return concat_blocks(pointers, dim);
}

// The reference of chip `chip`'s result.
Tensor reference_for(const CollectiveToCheck& c, int64_t chip) {
  const std::vector<int64_t> members =
      group_members(c.mesh, parse_axes(c.mesh, c.instr->attrs.get_string("axes")), chip);
  std::vector<const Tensor*> in;
  for (int64_t m : members) in.push_back(&c.operands.at(static_cast<size_t>(m)));
  const int64_t rank = static_cast<int64_t>(in.front()->shape().size());
  auto dim = [&](const char* name) {
    const int64_t d = c.instr->attrs.get_int(name);
    return d < 0 ? d + rank : d;
  };
  int64_t position = 0;
  while (members[static_cast<size_t>(position)] != chip) ++position;
  switch (c.instr->kind) {
    case OpKind::AllReduce:
      return group_sum(in);
    case OpKind::ReduceScatter:
      return slice_block(group_sum(in), dim("dim"), position, static_cast<int64_t>(members.size()));
    case OpKind::AllGather: {
      std::vector<Tensor> widened;
      for (const Tensor* t : in) widened.push_back(t->to(DType::F32));
      return joined(widened, dim("dim"));
    }
    case OpKind::ShardSlice:
      return slice_block(in[static_cast<size_t>(position)]->to(DType::F32), dim("dim"), position,
                         static_cast<int64_t>(members.size()));
    case OpKind::AllToAll: {
      std::vector<Tensor> received;
      for (const Tensor* t : in) {
        received.push_back(
            slice_block(t->to(DType::F32), dim("split_dim"), position, static_cast<int64_t>(members.size())));
      }
      return joined(received, dim("concat_dim"));
    }
    default:
      throw Error(std::string(op_name(c.instr->kind)) + " is not checked as a collective");
  }
}

OpGoldenRow check_chip(const CollectiveToCheck& c, int64_t chip, const OpThresholds& thresholds) {
  const Tensor& result = c.results.at(static_cast<size_t>(chip));
  OpGoldenRow row;
  row.chip = static_cast<int>(chip);
  row.index = c.index;
  row.op = std::string(op_name(c.instr->kind));
  row.origin = c.instr->origin;
  row.layer = c.layer;
  row.operand_shapes = {c.operands.at(static_cast<size_t>(chip)).shape()};
  row.shape = result.shape();
  row.dtype = std::string(dtype_name(result.dtype()));
  try {
    const Tensor reference = reference_for(c, chip);
    const Tensor device = result.to(DType::F32);
    const comparators::OutputMetrics compared = record_comparison(device, reference, thresholds, row);
    if (c.instr->kind != OpKind::AllReduce && c.instr->kind != OpKind::ReduceScatter) {  // data movement: exact
      if (row.status == "checked" && std::isfinite(row.atol) && !row.equal) {
        flag_row(row, "differs from the blocks of its group's operands it should hold");
      }
      return row;
    }
    if (result.dtype() == DType::BF16 && device.shape() == reference.shape()) {
      judge_rounding(device, reference, compared, thresholds, /*judge_spread=*/true, /*judge_bias=*/true, row);
    }
  } catch (const std::exception& e) {
    row.status = "error";
    row.note = e.what();
    row.past = false;
  }
  return row;
}

}  // namespace

bool is_checked_collective(OpKind kind) {
  return kind == OpKind::AllReduce || kind == OpKind::ReduceScatter || kind == OpKind::AllGather ||
         kind == OpKind::AllToAll || kind == OpKind::ShardSlice;
}

std::vector<OpGoldenRow> check_collective(const CollectiveToCheck& c, const OpThresholds& thresholds) {
  std::vector<OpGoldenRow> rows;
  for (int64_t chip = 0; chip < static_cast<int64_t>(c.results.size()); ++chip) {
    rows.push_back(check_chip(c, chip, thresholds));
  }
  return rows;
}

}  // namespace meshtest::runner
