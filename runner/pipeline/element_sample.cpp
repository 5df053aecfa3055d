// The sample's runs (one per window, placed by a mix of the window's index)
// and the copies of a tensor's, or a broadcast operand's, elements at them.
#include "runner/pipeline/element_sample.h"

#include <algorithm>
#include <cstring>

#include "core/dtype.h"
#include "core/error.h"
#include "core/rng.h"

namespace meshtest::runner {

namespace {

constexpr uint64_t kPlaceSalt = 0x53414d504c45ull;  // "SAMPLE"

// The run's place in window w, in runs from the window's start.
int64_t run_place(int64_t window) {
  return static_cast<int64_t>(mix_seed(static_cast<uint64_t>(window), kPlaceSalt) %
                              static_cast<uint64_t>(kSampleWindow / kSampleRun));
}

// Copies `count` elements of `element` bytes from `from` to `to`, the
// source stepping by `stride` elements (0: one element repeated).
void copy_strided(const unsigned char* from, int64_t stride, size_t element, int64_t count, unsigned char* to) {
  if (stride == 1) {
    std::memcpy(to, from, static_cast<size_t>(count) * element);
    return;
  }
  for (int64_t s = 0; s < count; ++s) std::memcpy(to + static_cast<size_t>(s) * element, from, element);
}

}  // namespace

std::vector<SampleRun> sample_runs(int64_t numel) {
  if (numel <= kSampleAbove) return {SampleRun{0, numel}};
  const int64_t windows = (numel + kSampleWindow - 1) / kSampleWindow;
  std::vector<SampleRun> runs;
  runs.reserve(static_cast<size_t>(windows));
  for (int64_t w = 0; w < windows; ++w) {
    const int64_t start = w * kSampleWindow;
    const int64_t length = std::min(kSampleRun, numel - start);
    const int64_t last = numel - start - length;  // the place that ends at the window's (or tensor's) end
    const int64_t place = w == 0 ? 0 : w == windows - 1 ? last : std::min(run_place(w) * kSampleRun, last);
    runs.push_back({start + place, length});
  }
  return runs;
}

int64_t sample_size(int64_t numel) {
  if (numel <= kSampleAbove) return numel;
  return numel / kSampleWindow * kSampleRun + std::min(kSampleRun, numel % kSampleWindow);
}

Tensor gather_sample(const Tensor& t, const std::vector<SampleRun>& runs) {
  if (t.dtype() == DType::BFP8_B) return gather_sample(t.to(DType::F32), runs);
  int64_t total = 0;
  for (const SampleRun& r : runs) total += r.length;
  Tensor out = Tensor::uninitialized(t.dtype(), {total});
  const size_t element = dtype_size(t.dtype());
  const auto* from = static_cast<const unsigned char*>(t.raw_data());
  auto* to = static_cast<unsigned char*>(out.raw_data());
  // The runs are where no hardware prefetcher looks: the run after next is
  // fetched while this one is copied.
  constexpr size_t kAhead = 2, kLine = 64;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (i + kAhead < runs.size()) {
      const unsigned char* next = from + static_cast<size_t>(runs[i + kAhead].start) * element;
      for (size_t b = 0; b < static_cast<size_t>(runs[i + kAhead].length) * element; b += kLine) {
        __builtin_prefetch(next + b);
      }
    }
    const SampleRun& r = runs[i];
    std::memcpy(to, from + static_cast<size_t>(r.start) * element, static_cast<size_t>(r.length) * element);
    to += static_cast<size_t>(r.length) * element;
  }
  return out;
}

Tensor gather_broadcast_sample(const Tensor& operand, const Shape& shape, const std::vector<SampleRun>& runs) {
  if (operand.dtype() == DType::BFP8_B) return gather_broadcast_sample(operand.to(DType::F32), shape, runs);
  if (operand.shape() == shape) return gather_sample(operand, runs);
  // The operand's stride along each axis of `shape` (0 where it is broadcast).
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t operand_rank = operand.rank();
  if (operand_rank > rank) throw Error("gather_broadcast_sample: operand of higher rank than the result");
  std::vector<int64_t> stride(static_cast<size_t>(rank), 0);
  int64_t step = 1;
  for (int64_t a = rank - 1, b = operand_rank - 1; b >= 0; --a, --b) {
    const int64_t size = operand.dim(b);
    if (size != 1 && size != shape[static_cast<size_t>(a)]) {
      throw Error("gather_broadcast_sample: " + shape_to_string(operand.shape()) + " does not broadcast to " +
                  shape_to_string(shape));
    }
    stride[static_cast<size_t>(a)] = size == 1 ? 0 : step;
    step *= size;
  }
  int64_t total = 0;
  for (const SampleRun& r : runs) total += r.length;
  Tensor out = Tensor::uninitialized(operand.dtype(), {total});
  std::vector<int64_t> index(static_cast<size_t>(rank));
  const auto* from = static_cast<const unsigned char*>(operand.raw_data());
  auto* to = static_cast<unsigned char*>(out.raw_data());
  const size_t element = dtype_size(operand.dtype());
  const size_t last = static_cast<size_t>(rank - 1);
  for (const SampleRun& r : runs) {
    // The run's first element: its index along every axis, and the operand's offset.
    int64_t rest = r.start, offset = 0;
    for (int64_t a = rank - 1; a >= 0; --a) {
      const int64_t size = shape[static_cast<size_t>(a)];
      index[static_cast<size_t>(a)] = rest % size;
      rest /= size;
      offset += index[static_cast<size_t>(a)] * stride[static_cast<size_t>(a)];
    }
    // Along the last axis a piece at a time (contiguous, or one element repeated).
    for (int64_t left = r.length; left > 0;) {
      const int64_t piece = std::min(left, shape[last] - index[last]);
      copy_strided(from + static_cast<size_t>(offset) * element, stride[last], element, piece, to);
      to += static_cast<size_t>(piece) * element;
      left -= piece;
      offset += stride[last] * piece;
      index[last] += piece;
      for (size_t a = last; a > 0 && index[a] == shape[a]; --a) {  // carry into the axes before
        offset += stride[a - 1] - stride[a] * shape[a];
        index[a] = 0;
        ++index[a - 1];
      }
    }
  }
  return out;
}

}  // namespace meshtest::runner
