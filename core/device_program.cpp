// Tile-padded memory footprint of device tensors.
#include "core/device_program.h"

namespace meshtest {

int64_t tile_padded_bytes(const TensorType& type) {
  auto round_up = [](int64_t v) { return ((v + kTileSide - 1) / kTileSide) * kTileSide; };
  const Shape& s = type.shape;
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t outer = 1;
  if (s.size() == 1) {
    cols = s[0];
  } else if (s.size() >= 2) {
    rows = s[s.size() - 2];
    cols = s[s.size() - 1];
    for (size_t i = 0; i + 2 < s.size(); ++i) outer *= s[i];
  }
  const int64_t elements = outer * round_up(rows) * round_up(cols);
  return static_cast<int64_t>(storage_bytes(type.dtype, elements));
}

}  // namespace meshtest
