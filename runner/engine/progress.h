// Progress while a run goes: on a terminal, one live line (done/total,
// counts by outcome, elapsed, ETA, cases in flight) with failures printed
// above it; elsewhere (CI logs), one plain line per finished case.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "reports/case_result.h"
#include "runner/engine/console_report.h"
#include "runner/engine/process_clock.h"

namespace meshtest::runner {

struct ProgressState {
  size_t done = 0, total = 0;
  std::map<std::string, int> counts;  // "passed" -> 3, "flaky" -> 1
  double elapsed = 0;
  std::vector<std::string> in_flight;  // test ids
};

// "[12/40] 10 passed, 1 failed | 0:12 elapsed, ETA 0:28 | running: a, b"
// cut to `width` columns.
std::string format_progress_line(const ProgressState& state, size_t width);

class Progress {
 public:
  virtual ~Progress() = default;
  virtual void started(const std::string& test_id) = 0;
  // `final`: the case's last attempt (a failed attempt that will be retried is not).
  virtual void finished(const reports::CaseResult& result, bool final) = 0;
  virtual void tick() = 0;
  virtual void close() = 0;
};

// `out` writes to file descriptor `fd`: a terminal gets the live line, anything else plain lines.
std::unique_ptr<Progress> make_progress(std::ostream& out, int fd, size_t total, const Clock& clock,
                                        const ConsoleStyle& style = {});

// Whether the file descriptor is an interactive terminal.
bool is_terminal(int fd);

}  // namespace meshtest::runner
