// Head + tail capture of worker output.
#include "runner/engine/process_output.h"

#include <algorithm>

namespace meshtest::runner {

void CappedOutput::append(const char* data, size_t size) {
  total_ += size;
  const size_t to_head = std::min(size, half_ - std::min(half_, head_.size()));
  head_.append(data, to_head);
  data += to_head;
  size -= to_head;
  for (size_t i = 0; i < size && half_ > 0; ++i) {
    if (tail_.size() < half_) {
      tail_.push_back(data[i]);
    } else {
      tail_[tail_pos_] = data[i];
      tail_pos_ = (tail_pos_ + 1) % half_;
    }
  }
}

std::string CappedOutput::text() const {
  std::string tail = tail_.substr(tail_pos_) + tail_.substr(0, tail_pos_);
  const size_t kept = head_.size() + tail.size();
  if (kept == total_) return head_ + tail;
  return head_ + "\n[... " + std::to_string(total_ - kept) + " bytes of output dropped ...]\n" + tail;
}

}  // namespace meshtest::runner
