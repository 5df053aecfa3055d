// The one way meshtest splits a loop over [0, n) across oneTBB workers:
// chunks of at least `grain` iterations, run inline when n is small.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>

namespace meshtest {

// Calls fn(begin, end) over disjoint sub-ranges covering [0, n).
template <class Fn>
void parallel_ranges(int64_t n, int64_t grain, const Fn& fn) {
  if (n <= 0) return;
  if (n <= grain) {
    fn(int64_t{0}, n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, grain),
                    [&](const tbb::blocked_range<int64_t>& r) { fn(r.begin(), r.end()); });
}

}  // namespace meshtest
