// One-shot SIGINT/SIGTERM handlers that only note the signal.
#include "runner/engine/stop_signals.h"

#include <signal.h>
#include <string.h>

namespace meshtest::runner {

namespace {

volatile sig_atomic_t g_received = 0;

void note_signal(int signal_number) { g_received = signal_number; }

void set_handler(void (*handler)(int)) {
  struct sigaction action = {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // no SA_RESTART: a waiting poll() returns at once
  for (int signal_number : {SIGINT, SIGTERM}) sigaction(signal_number, &action, nullptr);
}

}  // namespace

StopSignals::StopSignals() {
  g_received = 0;
  set_handler(note_signal);
}

StopSignals::~StopSignals() { set_handler(SIG_DFL); }

int StopSignals::received() const { return g_received; }

std::string signal_name(int signal_number) {
  const char* abbrev = sigabbrev_np(signal_number);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal_number);
}

}  // namespace meshtest::runner
