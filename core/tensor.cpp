// Host tensor storage, element access and dtype conversion.
#include "core/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/buffer_pool.h"
#include "core/dtype_convert.h"
#include "core/error.h"
#include "core/limits.h"
#include "core/parallel.h"
#include "core/simd.h"

namespace meshtest {

int64_t shape_numel(const Shape& shape) {
  for (int64_t d : shape) {
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) {
      throw Error("element count of " + shape_to_string(shape) + " overflows int64");
    }
  }
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? "," : "") << shape[i];
  out << ']';
  return out.str();
}

std::vector<int64_t> shape_strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
    strides[static_cast<size_t>(i)] = strides[static_cast<size_t>(i) + 1] * shape[static_cast<size_t>(i) + 1];
  }
  return strides;
}

namespace {

// Elements per parallel conversion task.
constexpr int64_t kConvertGrain = int64_t{1} << 16;

// Large tensors come from the buffer pool (recycled instead of fresh zeroed
// pages: core/buffer_pool.h); small ones from malloc.
std::shared_ptr<void> allocate_storage(size_t bytes, bool zero) {
  const size_t rounded = bytes == 0 ? 64 : ((bytes + 63) / 64) * 64;
  if (rounded >= buffer_pool::kMinBytes) {
    const buffer_pool::Buffer b = buffer_pool::acquire(rounded);
    if (b.data == nullptr) throw OutOfMemoryError("host allocation of " + std::to_string(bytes) + " bytes failed");
    if (zero) std::memset(b.data, 0, rounded);
    return std::shared_ptr<void>(b.data, [b](void*) { buffer_pool::release(b); });
  }
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) throw OutOfMemoryError("host allocation of " + std::to_string(bytes) + " bytes failed");
  if (zero) std::memset(p, 0, rounded);
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

}  // namespace

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  checked_tensor_bytes(dtype_, shape_, "host tensor");
  owner_ = allocate_storage(nbytes(), true);
  data_ = owner_.get();
}

Tensor Tensor::uninitialized(DType dtype, Shape shape) {
  checked_tensor_bytes(dtype, shape, "host tensor");
  Tensor t(dtype, std::move(shape), nullptr, nullptr);
  t.owner_ = allocate_storage(t.nbytes(), false);
  t.data_ = t.owner_.get();
  return t;
}

Tensor::Tensor(DType dtype, Shape shape, std::shared_ptr<void> owner, void* data)
    : dtype_(dtype), shape_(std::move(shape)), owner_(std::move(owner)), data_(data) {}

Tensor Tensor::from_f32(Shape shape, const std::vector<float>& values) {
  Tensor t(DType::F32, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.numel()) {
    throw Error("from_f32: " + std::to_string(values.size()) + " values for shape " + shape_to_string(t.shape()));
  }
  std::copy(values.begin(), values.end(), static_cast<float*>(t.data_));  // (memcpy of an empty vector's null data is UB)
  return t;
}

Tensor Tensor::from_i64(Shape shape, const std::vector<int64_t>& values) {
  Tensor t(DType::I64, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.numel()) {
    throw Error("from_i64: " + std::to_string(values.size()) + " values for shape " + shape_to_string(t.shape()));
  }
  std::copy(values.begin(), values.end(), static_cast<int64_t*>(t.data_));
  return t;
}

void Tensor::check_access(DType requested) const {
  if (requested != dtype_) {
    throw Error("tensor of dtype " + std::string(dtype_name(dtype_)) + " accessed as " +
                std::string(dtype_name(requested)));
  }
}

double Tensor::element_as_double(int64_t i) const {
  if (dtype_ == DType::BFP8_B) throw Error("element_as_double: bfp8_b tensors must be converted first");
  return visit_dtype(dtype_, [&](auto tag) {
    using Tag = decltype(tag);
    return static_cast<double>(Tag::load(static_cast<const typename Tag::storage*>(data_)[i]));
  });
}

std::vector<float> Tensor::to_f32_vector() const {
  const Tensor f = to(DType::F32);
  const float* p = static_cast<const float*>(f.data_);
  return std::vector<float>(p, p + f.numel());
}

Tensor Tensor::to(DType target) const {
  if (target == dtype_) return *this;
  const int64_t n = numel();
  if (dtype_ == DType::F32 && target == DType::BF16) {  // the common case, vectorized and in parallel
    Tensor out = uninitialized(target, shape_);
    const float* in = static_cast<const float*>(data_);
    uint16_t* o = static_cast<uint16_t*>(out.data_);
    parallel_ranges(n, kConvertGrain, [&](int64_t begin, int64_t end) { simd::f32_to_bf16(in + begin, o + begin, end - begin); });
    return out;
  }
  if (dtype_ == DType::BF16 && target == DType::F32) {
    Tensor out = uninitialized(target, shape_);
    const uint16_t* in = static_cast<const uint16_t*>(data_);
    float* o = static_cast<float*>(out.data_);
    parallel_ranges(n, kConvertGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) o[i] = bf16_to_f32(in[i]);
    });
    return out;
  }
  if (dtype_ == DType::BFP8_B) {  // the block format goes through f32 both ways
    Tensor f = uninitialized(DType::F32, shape_);
    decode_bfp8_b(static_cast<const uint8_t*>(data_), shape_, static_cast<float*>(f.data_));
    return f.to(target);
  }
  if (target == DType::BFP8_B) {
    const Tensor f = to(DType::F32);
    Tensor out(target, shape_);
    encode_bfp8_b_blocks(static_cast<const float*>(f.data_), shape_, 0, bfp8_b_block_count(shape_),
                         static_cast<uint8_t*>(out.data_));
    return out;
  }
  Tensor out = uninitialized(target, shape_);
  parallel_ranges(n, kConvertGrain, [&](int64_t begin, int64_t end) {
    const size_t in_offset = static_cast<size_t>(begin) * dtype_size(dtype_);
    const size_t out_offset = static_cast<size_t>(begin) * dtype_size(target);
    convert_elements(dtype_, static_cast<const char*>(data_) + in_offset, target,
                     static_cast<char*>(out.data_) + out_offset, end - begin);
  });
  return out;
}

Tensor Tensor::reshaped(Shape shape) const {
  if (shape_numel(shape) != numel()) {
    throw Error("cannot reshape " + shape_to_string(shape_) + " to " + shape_to_string(shape));
  }
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::clone() const {
  Tensor t(dtype_, shape_);
  if (nbytes() > 0) std::memcpy(t.data_, data_, nbytes());
  return t;
}

}  // namespace meshtest
