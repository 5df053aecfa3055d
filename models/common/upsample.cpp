// Nearest upsampling: [N,C,H,1,W,1] + zeros[f,1,f] broadcast, then fold back.
#include "models/common/upsample.h"

#include "core/error.h"

namespace meshtest::models {

ValueId upsample_nearest(GraphBuilder& b, ValueId x, int64_t factor) {
  const Shape s = b.shape(x);
  if (s.size() != 4 || factor < 1) throw CompileError("upsample_nearest: needs [N,C,H,W] and a factor >= 1");
  const ValueId spread = b.reshape(x, {s[0], s[1], s[2], 1, s[3], 1});
  const ValueId zeros = b.constant(0.0, {factor, 1, factor}, b.type(x).dtype);
  return b.reshape(b.add(spread, zeros), {s[0], s[1], s[2] * factor, s[3] * factor});
}

}  // namespace meshtest::models
