// The clock the engine reads (deadlines, heartbeats, progress), behind an
// interface so tests can drive time.
#pragma once

#include <chrono>

namespace meshtest::runner {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now_seconds() const = 0;  // monotonic
};

class SteadyClock : public Clock {
 public:
  double now_seconds() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  }
};

}  // namespace meshtest::runner
