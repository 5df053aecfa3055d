// SIGINT/SIGTERM during a run (Ctrl-C, a CI cancel, a job timeout): while a
// StopSignals lives, the first such signal is only noted, so the run loop can
// stop its workers and the run can write its reports; a second one has the
// default effect (ends the process at once).
#pragma once

#include <string>

namespace meshtest::runner {

class StopSignals {
 public:
  StopSignals();   // installs the handlers
  ~StopSignals();  // restores the default handlers
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The signal received (SIGINT or SIGTERM), 0 while none.
  int received() const;
};

// "SIGTERM", "SIGINT", ...
std::string signal_name(int signal_number);

}  // namespace meshtest::runner
