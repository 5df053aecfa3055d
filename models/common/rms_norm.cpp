// RMSNorm helper, composed from elementwise ops and a mean over the last dim.
#include "models/common/rms_norm.h"

#include "core/error.h"
#include "models/common/init.h"

namespace meshtest::models {

ValueId rms_norm(LayerContext& ctx, const std::string& prefix, ValueId x, double eps) {
  GraphBuilder& b = ctx.builder;
  const Shape& in_shape = b.shape(x);
  if (in_shape.empty()) throw CompileError("rms_norm '" + prefix + "': input must have rank >= 1");
  const int64_t d = in_shape.back();
  const int64_t last = static_cast<int64_t>(in_shape.size()) - 1;
  const ValueId weight = ctx.weight(join_name(prefix, "weight"), {d}, init::norm_gain());
  const ValueId mean_sq =
      b.op(OpKind::ReduceMean, {b.mul(x, x)}, {{"axes", std::vector<int64_t>{last}}, {"keepdim", int64_t{1}}});
  const ValueId inv_rms = b.op(OpKind::Rsqrt, {b.add(mean_sq, ctx.scalar(eps))});
  return b.mul(b.mul(x, inv_rms), weight);
}

}  // namespace meshtest::models
