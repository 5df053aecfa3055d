// run --log-memory: the host's peak resident memory in each phase of a case.
// Entering a phase closes the previous one's peak (VmHWM) and resets the
// peak (host_memory.h); where the kernel does not allow the reset, a phase's
// figure is the process's peak up to its end. Device memory is what the
// backend reports for the execute phase (MemoryStats: peak_device_dram_bytes).
#pragma once

#include <optional>

#include "reports/case_result.h"
#include "runner/pipeline/case_pipeline.h"

namespace meshtest::runner {

class PhaseMemoryLog {
 public:
  explicit PhaseMemoryLog(bool on) : on_(on) {}
  // The case enters `next`: the current phase's peak is kept.
  void enter(Phase next);
  // The case is over: keeps the last phase's peak; the record's
  // peak_host_rss_by_phase, and peak_host_rss_bytes as their highest.
  void finish(reports::CaseResult& r);

 private:
  void close_current();

  bool on_;
  std::optional<Phase> current_;
  reports::PhaseBytes peaks_;
};

}  // namespace meshtest::runner
