// Recycled host memory for large tensors. A streamed model makes and frees
// weights of the same few sizes layer after layer; glibc returns each such
// buffer to the kernel (mmap/munmap) and the next one faults in fresh zeroed
// pages (10-40% of a real-size case was the kernel clearing pages). The pool
// keeps freed large buffers, up to a byte limit, and hands them out again.
//
// Behaviour a user sees: less system time and the same results; peak RSS can
// grow by at most the limit. MESHTEST_BUFFER_POOL_MB sets the limit (0 turns
// the pool off); the default is 1/16 of physical memory, at most 2 GiB.
#pragma once

#include <cstddef>
#include <cstdint>

namespace meshtest::buffer_pool {

// Buffers of at least this many bytes come from the pool (smaller ones are
// malloc's business). 256 KiB takes in a real-size CNN's activations (100 KB
// to 2 MB in bf16) and the device's temporaries: recycled within a case,
// resnet50's case without the per-op check took 0.231 -> 0.204 s
// (docs/benchmarks.md).
inline constexpr size_t kMinBytes = size_t{256} << 10;
// Sizes are rounded up to a multiple of this, so buffers of nearby sizes
// serve each other. (Transparent huge pages were tried and dropped: they
// saved a single case 10% but the kernel's compaction for each fresh 2 MiB
// page cost runs of many cases more, 2-4 s of system CPU on the PR
// selection against 1.4-1.7 s without.)
inline constexpr size_t kAlignment = size_t{2} << 20;

struct Buffer {
  void* data = nullptr;
  size_t bytes = 0;  // the buffer's real size (>= what was asked, a multiple of kAlignment)
};

// A buffer of at least `bytes` (>= kMinBytes): a held one no more than a
// quarter larger if there is one, else a fresh one (null when the host has
// no memory left even after every held buffer was freed). Contents are
// unspecified.
Buffer acquire(size_t bytes);
// Gives `buffer` back: held for reuse while the pool stays under its limit
// (the oldest held buffers are freed to make room), freed otherwise.
void release(Buffer buffer);
// Frees every held buffer.
void trim();

struct Stats {
  int64_t held_bytes = 0;
  int64_t reused = 0;  // acquires served from the pool
  int64_t fresh = 0;   // acquires that asked the system
  int64_t limit_bytes = 0;
};
Stats stats();
// Replaces the limit (tests); trims to it.
void set_limit(int64_t bytes);

}  // namespace meshtest::buffer_pool
