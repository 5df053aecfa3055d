// The large-buffer pool: a small list of held buffers under one mutex
// (it holds tens of buffers, each reused many times, so a scan is cheap).
#include "core/buffer_pool.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace meshtest::buffer_pool {

namespace {

int64_t default_limit() {
  if (const char* env = std::getenv("MESHTEST_BUFFER_POOL_MB")) {
    return std::max<int64_t>(0, std::atoll(env)) << 20;
  }
  const int64_t physical = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  return std::min<int64_t>(physical / 16, int64_t{2} << 30);
}

struct Pool {
  std::mutex mutex;
  std::vector<Buffer> held;  // oldest first
  int64_t held_bytes = 0;
  int64_t reused = 0, fresh = 0;
  int64_t limit = default_limit();

  // Frees the oldest held buffers until `room` more bytes fit the limit.
  void make_room(int64_t room) {
    size_t drop = 0;
    while (drop < held.size() && held_bytes + room > limit) {
      held_bytes -= static_cast<int64_t>(held[drop].bytes);
      std::free(held[drop].data);
      ++drop;
    }
    held.erase(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(drop));
  }
};

Pool& pool();

Pool* make_pool() {
  auto* p = new Pool;
  // A fork while another thread holds the mutex would leave the child's copy
  // locked for ever: hold it across fork, release it on both sides.
  pthread_atfork([] { pool().mutex.lock(); }, [] { pool().mutex.unlock(); }, [] { pool().mutex.unlock(); });
  return p;
}

Pool& pool() {
  static Pool* p = make_pool();  // never destroyed: tensors may be freed during static destruction
  return *p;
}

void* allocate_fresh(size_t bytes) { return std::aligned_alloc(kAlignment, bytes); }

}  // namespace

Buffer acquire(size_t bytes) {
  bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  Pool& p = pool();
  {
    const std::lock_guard<std::mutex> lock(p.mutex);
    auto best = p.held.end();
    for (auto it = p.held.begin(); it != p.held.end(); ++it) {
      if (it->bytes >= bytes && it->bytes <= bytes + bytes / 4 && (best == p.held.end() || it->bytes < best->bytes)) {
        best = it;
      }
    }
    if (best != p.held.end()) {
      const Buffer b = *best;
      p.held.erase(best);
      p.held_bytes -= static_cast<int64_t>(b.bytes);
      ++p.reused;
      return b;
    }
    ++p.fresh;
  }
  if (void* data = allocate_fresh(bytes)) return {data, bytes};
  trim();  // held buffers of other sizes may be what stands in the way
  return {allocate_fresh(bytes), bytes};
}

void release(Buffer buffer) {
  if (buffer.data == nullptr) return;
  Pool& p = pool();
  {
    const std::lock_guard<std::mutex> lock(p.mutex);
    const auto size = static_cast<int64_t>(buffer.bytes);
    if (size <= p.limit) {
      p.make_room(size);
      p.held.push_back(buffer);
      p.held_bytes += size;
      return;
    }
  }
  std::free(buffer.data);
}

void trim() {
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  for (const Buffer& b : p.held) std::free(b.data);
  p.held.clear();
  p.held_bytes = 0;
}

Stats stats() {
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  return {p.held_bytes, p.reused, p.fresh, p.limit};
}

void set_limit(int64_t bytes) {
  Pool& p = pool();
  const std::lock_guard<std::mutex> lock(p.mutex);
  p.limit = std::max<int64_t>(0, bytes);
  p.make_room(0);
}

}  // namespace meshtest::buffer_pool
