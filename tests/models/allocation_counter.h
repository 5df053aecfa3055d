// Test helper: counts every global operator new in the process (this test
// binary replaces it), so a test can prove a call builds nothing big —
// plugins loaded with dlopen bind to the same operator new.
#pragma once

#include <cstdint>

namespace meshtest::testing {

struct AllocationCount {
  uint64_t calls = 0;
  uint64_t bytes = 0;
};

AllocationCount allocations_so_far();

inline AllocationCount operator-(const AllocationCount& a, const AllocationCount& b) {
  return {a.calls - b.calls, a.bytes - b.bytes};
}

}  // namespace meshtest::testing
