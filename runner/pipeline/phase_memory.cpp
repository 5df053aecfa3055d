// Per-phase peak host memory of a case (run --log-memory).
#include "runner/pipeline/phase_memory.h"

#include <algorithm>

#include "runner/pipeline/host_memory.h"

namespace meshtest::runner {

namespace {

// The record's slot of `phase`; nullptr for Done.
int64_t* slot(reports::PhaseBytes& peaks, Phase phase) {
  switch (phase) {
    case Phase::LoadModel:
    case Phase::LoadInputs:
      return &peaks.load;
    case Phase::Golden:
      return &peaks.golden;
    case Phase::Compile:
      return &peaks.compile;
    case Phase::Execute:
      return &peaks.execute;
    case Phase::Compare:
      return &peaks.compare;
    case Phase::Done:
      break;
  }
  return nullptr;
}

}  // namespace

void PhaseMemoryLog::close_current() {
  if (!current_) return;
  if (int64_t* peak = slot(peaks_, *current_)) *peak = std::max(*peak, peak_rss_bytes());
}

void PhaseMemoryLog::enter(Phase next) {
  if (!on_) return;
  close_current();
  reset_peak_rss();
  current_ = next;
}

void PhaseMemoryLog::finish(reports::CaseResult& r) {
  if (!on_) return;
  close_current();
  current_.reset();
  r.peak_host_rss_by_phase = peaks_;
  r.peak_host_rss_bytes = std::max({r.peak_host_rss_bytes, peaks_.load, peaks_.golden, peaks_.compile,
                                    peaks_.execute, peaks_.compare});
}

}  // namespace meshtest::runner
