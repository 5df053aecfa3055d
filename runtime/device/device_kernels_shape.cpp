// Device data-movement kernels: reshape, transpose, concat, slice and
// embedding gather. They move elements of any dtype without touching values.
#include <algorithm>
#include <string>

#include "core/error.h"
#include "runtime/device/device_kernels.h"

namespace meshtest::runtime::device_kernels {

namespace {

size_t element_size(const Tensor& t) {
  const size_t size = dtype_size(t.dtype());
  if (size == 0) throw RuntimeError("data movement does not support dtype " + std::string(dtype_name(t.dtype())));
  return size;
}

template <class E>
void transpose_typed(const E* in, E* out, const Shape& out_shape, const std::vector<int64_t>& in_strides_by_out) {
  const size_t rank = out_shape.size();
  const int64_t inner = rank == 0 ? 1 : out_shape.back();
  const int64_t inner_stride = rank == 0 ? 0 : in_strides_by_out.back();
  const int64_t rows = inner == 0 ? 0 : shape_numel(out_shape) / inner;
  parallel_ranges(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(inner, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t offset = 0;
      int64_t rest = row;
      for (size_t d = rank - 1; d-- > 0;) {
        offset += (rest % out_shape[d]) * in_strides_by_out[d];
        rest /= out_shape[d];
      }
      E* dst = out + row * inner;
      for (int64_t j = 0; j < inner; ++j) dst[j] = in[offset + j * inner_stride];
    }
  });
}

}  // namespace

void copy_reshape(const Tensor& x, Tensor& out) {
  if (x.nbytes() != out.nbytes()) throw RuntimeError("reshape changes the byte size");
  if (x.nbytes() > 0) std::memcpy(out.raw_data(), x.raw_data(), x.nbytes());
}

void transpose(const Tensor& x, const Attrs& attrs, Tensor& out) {
  const std::vector<int64_t> perm = attrs.get_ints("perm");
  const std::vector<int64_t> strides = shape_strides(x.shape());
  if (x.rank() <= 1) {
    copy_reshape(x, out);
    return;
  }
  std::vector<int64_t> by_out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) by_out[i] = strides[static_cast<size_t>(normalize_axis(perm[i], x.rank()))];
  switch (element_size(x)) {
    case 1:  // by size, not dtype: bool, i8, u8 alike
      transpose_typed(static_cast<const uint8_t*>(x.raw_data()), static_cast<uint8_t*>(out.raw_data()), out.shape(),
                      by_out);
      return;
    case 2:  // bf16, i16, u16 alike
      transpose_typed(static_cast<const uint16_t*>(x.raw_data()), static_cast<uint16_t*>(out.raw_data()), out.shape(),
                      by_out);
      return;
    case 4:
      transpose_typed(static_cast<const uint32_t*>(x.raw_data()), static_cast<uint32_t*>(out.raw_data()), out.shape(),
                      by_out);
      return;
    default:
      transpose_typed(static_cast<const uint64_t*>(x.raw_data()), static_cast<uint64_t*>(out.raw_data()), out.shape(),
                      by_out);
      return;
  }
}

void concat(const std::vector<const Tensor*>& xs, const Attrs& attrs, Tensor& out) {
  const int64_t axis = normalize_axis(attrs.get_int("axis"), out.rank());
  const size_t esize = element_size(out);
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= out.dim(i);
  const auto out_row = out.numel() == 0 ? 0 : static_cast<size_t>(out.numel() / std::max<int64_t>(outer, 1)) * esize;
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  for (const Tensor* x : xs) {
    if (x->dtype() != out.dtype()) throw RuntimeError("concat operand dtype differs from the result");
  }
  parallel_ranges(outer, 1, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      size_t at = static_cast<size_t>(o) * out_row;
      for (const Tensor* x : xs) {
        const size_t chunk = static_cast<size_t>(x->numel() / std::max<int64_t>(outer, 1)) * esize;
        if (chunk > 0)
          std::memcpy(dst + at, static_cast<const uint8_t*>(x->raw_data()) + static_cast<size_t>(o) * chunk, chunk);
        at += chunk;
      }
    }
  });
}

void slice(const Tensor& x, const Attrs& attrs, Tensor& out) {
  const int64_t axis = normalize_axis(attrs.get_int("axis"), x.rank());
  const int64_t dim = x.dim(axis);
  const int64_t step = attrs.get_int("step", 1);
  int64_t start = attrs.get_int("start", 0);
  if (start < 0) start += dim;
  start = std::clamp<int64_t>(start, 0, dim);
  const int64_t len = out.dim(axis);
  int64_t outer = 1;
  for (int64_t i = 0; i < axis; ++i) outer *= x.dim(i);
  int64_t inner = 1;
  for (int64_t i = axis + 1; i < x.rank(); ++i) inner *= x.dim(i);
  const size_t esize = element_size(x);
  const size_t chunk = static_cast<size_t>(inner) * esize;
  const auto* src = static_cast<const uint8_t*>(x.raw_data());
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  if (chunk == 0) return;
  parallel_ranges(outer * len, std::max<int64_t>(1, 65536 / static_cast<int64_t>(chunk)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t r = begin; r < end; ++r) {
                      const int64_t o = r / len;
                      const int64_t k = r % len;
                      std::memcpy(dst + static_cast<size_t>(r) * chunk,
                                  src + static_cast<size_t>(o * dim + start + k * step) * chunk, chunk);
                    }
                  });
}

namespace {

// Rows of `table` (which holds rows first.. of the whole table) for `ids`;
// with `whole_table`, an id outside it is an error, else a zero row.
void gather_rows(const Tensor& ids, const Tensor& table, int64_t first, bool whole_table, Tensor& out) {
  if (table.dtype() != out.dtype()) throw RuntimeError("embedding table dtype differs from the result");
  const int64_t rows = table.dim(0);
  const size_t row_bytes = static_cast<size_t>(table.dim(1)) * element_size(table);
  const auto* src = static_cast<const uint8_t*>(table.raw_data());
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  const int64_t n = ids.numel();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = ids.dtype() == DType::I32 ? ids.data<int32_t>()[i] : ids.data<int64_t>()[i];
    const int64_t row = id - first;
    if (id < 0 || (whole_table && row >= rows)) {
      throw RuntimeError("embedding id " + std::to_string(id) + " at position " + std::to_string(i) +
                         " is out of range [0, " + std::to_string(rows) + ")");
    }
    if (row_bytes == 0) continue;
    uint8_t* to = dst + static_cast<size_t>(i) * row_bytes;
    if (row >= 0 && row < rows) {
      std::memcpy(to, src + static_cast<size_t>(row) * row_bytes, row_bytes);
    } else {
      std::memset(to, 0, row_bytes);  // another chip's row
    }
  }
}

}  // namespace

void embedding(const Tensor& ids, const Tensor& table, Tensor& out) { gather_rows(ids, table, 0, true, out); }

void embedding_shard(const Tensor& ids, const Tensor& table, const Tensor& start, Tensor& out) {
  gather_rows(ids, table, start.data<int64_t>()[0], false, out);
}

}  // namespace meshtest::runtime::device_kernels
