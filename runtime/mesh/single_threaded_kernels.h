// One owner of parallelism per layer (DESIGN.md §7): while chips run side by
// side (the mesh runtime's tasks, a generated mesh program's threads), the
// kernels of a chip (oneDNN's OpenMP) run on one thread instead of starting a
// team per chip. Some kernels' f32 sums depend on that team size, so both
// must run a chip's kernels alike to agree bit for bit. Restored afterwards.
#pragma once

#include <omp.h>

namespace meshtest::runtime {

class SingleThreadedKernels {
 public:
  SingleThreadedKernels() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreadedKernels() { omp_set_num_threads(saved_); }
  SingleThreadedKernels(const SingleThreadedKernels&) = delete;
  SingleThreadedKernels& operator=(const SingleThreadedKernels&) = delete;

 private:
  int saved_;
};

}  // namespace meshtest::runtime
