// Streamed weights of a mesh execution: every chip's weight data made when
// the chip first reads it and dropped once every chip passed its last read,
// so the host never holds the whole model (the chips' DRAM accounting still
// counts every weight resident: runtime/device/simulated_chip.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/tensor.h"
#include "runtime/device/simulated_chip.h"

namespace meshtest::runtime {

// Where streamed weights come from (the backend: the graph's lazy weights
// and the sharding plan). Both calls may run concurrently.
class WeightSource {
 public:
  virtual ~WeightSource() = default;
  // The data every chip's share of weight buffer `id` is cut from, made now.
  virtual Tensor whole(int32_t id) const = 0;
  // Chip `chip`'s data of buffer `id`, in the buffer's device dtype, from `whole`.
  virtual Tensor for_chip(const Tensor& whole, size_t chip, int32_t id) const = 0;
};

// One execution's cache over a WeightSource: a buffer's whole data is made
// once, on the first chip's read, and kept until all `chips` are done with it
// (chips whose data is the whole itself share its storage, which lets the
// mesh runtime simulate replicated work once).
class StreamedWeights {
 public:
  StreamedWeights(std::shared_ptr<const WeightSource> source, size_t chips);
  // Chip `chip`'s feed (simulated_chip.h).
  ChipWeightFeed feed(size_t chip);
  // Bytes of whole data held now (for tests).
  int64_t held_bytes() const;

 private:
  struct Entry {
    std::mutex mutex;
    Tensor whole;
    size_t done = 0;
  };
  Entry& entry(int32_t id);
  Tensor fetch(size_t chip, int32_t id);
  void done(int32_t id);

  std::shared_ptr<const WeightSource> source_;
  size_t chips_;
  mutable std::mutex mutex_;  // guards entries_ (not the entries)
  std::map<int32_t, std::unique_ptr<Entry>> entries_;
};

}  // namespace meshtest::runtime
