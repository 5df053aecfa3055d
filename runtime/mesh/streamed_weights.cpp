// Streamed weights: a per-buffer entry holding the whole data until every
// chip of the mesh passed the buffer's last read.
#include "runtime/mesh/streamed_weights.h"

namespace meshtest::runtime {

StreamedWeights::StreamedWeights(std::shared_ptr<const WeightSource> source, size_t chips)
    : source_(std::move(source)), chips_(chips) {}

ChipWeightFeed StreamedWeights::feed(size_t chip) {
  return {[this, chip](int32_t id) { return fetch(chip, id); }, [this](int32_t id) { done(id); }};
}

StreamedWeights::Entry& StreamedWeights::entry(int32_t id) {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<Entry>& e = entries_[id];
  if (!e) e = std::make_unique<Entry>();
  return *e;
}

Tensor StreamedWeights::fetch(size_t chip, int32_t id) {
  Entry& e = entry(id);
  const std::lock_guard<std::mutex> lock(e.mutex);
  if (!e.whole.defined()) e.whole = source_->whole(id);
  return source_->for_chip(e.whole, chip, id);
}

void StreamedWeights::done(int32_t id) {
  Entry& e = entry(id);
  const std::lock_guard<std::mutex> lock(e.mutex);
  if (++e.done == chips_) e.whole = Tensor();
}

int64_t StreamedWeights::held_bytes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  int64_t bytes = 0;
  for (const auto& [id, e] : entries_) {
    const std::lock_guard<std::mutex> entry_lock(e->mutex);
    if (e->whole.defined()) bytes += e->whole.nbytes();
  }
  return bytes;
}

}  // namespace meshtest::runtime
