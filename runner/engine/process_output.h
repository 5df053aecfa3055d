// A worker's captured stdout/stderr, capped: the first and the last
// `cap / 2` bytes are kept, with a note of how much was dropped between.
#pragma once

#include <cstddef>
#include <string>

namespace meshtest::runner {

constexpr size_t kDefaultOutputCap = 64 * 1024;

class CappedOutput {
 public:
  explicit CappedOutput(size_t cap = kDefaultOutputCap) : half_(cap / 2) {}
  void append(const char* data, size_t size);
  std::string text() const;
  size_t total_bytes() const { return total_; }

 private:
  size_t half_;
  size_t total_ = 0;
  std::string head_;
  std::string tail_;  // ring buffer of the last half_ bytes once head_ is full
  size_t tail_pos_ = 0;
};

}  // namespace meshtest::runner
