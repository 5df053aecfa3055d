// Peak resident memory of this process (VmHWM), resettable per case.
#pragma once

#include <cstdint>

namespace meshtest::runner {

// Bytes of the process's peak resident set since start or the last reset.
int64_t peak_rss_bytes();
// Resets the peak to the current RSS (Linux /proc/self/clear_refs "5"); a
// no-op where the kernel does not allow it.
void reset_peak_rss();

}  // namespace meshtest::runner
