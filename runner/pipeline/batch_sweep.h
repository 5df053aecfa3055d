// The batch sweep of perf mode (`meshtest run --perf --batch 1,2,4,...`):
// after an inference case's checked run, the model is loaded, compiled and
// timed at each batch in turn, and each point gives its latency (seconds of
// one execution) and throughput (samples/s). The sweep stops at the first
// batch the device cannot hold (out of memory at compile or execution) or
// the first whose throughput is not at least 5% above the best so far —
// the tuning loop of picking a serving batch, done for you. On a backend
// with a cost model and no device clock (the simulated chip) the times are
// the modelled device time; on a PJRT plugin they are the device's own
// (launch to completion), median of the perf iterations after one warm-up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/case_result.h"
#include "runner/collection/test_case.h"
#include "runner/pipeline/case_pipeline.h"

namespace meshtest::runner {

// Throughput must grow by this factor over the best batch so far to go on.
inline constexpr double kSweepMinimumGain = 1.05;

struct BatchPoint {
  int64_t batch = 0;
  double seconds = 0;             // one execution
  double samples_per_second = 0;  // batch / seconds
  bool modelled = false;          // the cost model's time, not a clock's
};

struct BatchSweep {
  std::vector<BatchPoint> points;
  std::string stopped;  // why it ended before the last batch ("out of memory at batch 64: ..."); empty: ran all
};

// Parses "1,2,4,8" (positive, increasing); throws ParseError.
std::vector<int64_t> parse_batches(const std::string& text);

// Runs the sweep for an inference case planned as `plan` (its layout and
// compile target); `iterations` timed executions per batch.
BatchSweep sweep_batches(const TestCase& test_case, const CasePlan& plan, const CompileSettings& settings,
                         const std::vector<int64_t>& batches, int iterations);

// "b=1 2.10 ms 476/s; b=2 ...; stopped: ..." (the record's perf_batch_sweep).
std::string sweep_text(const BatchSweep& sweep);

}  // namespace meshtest::runner
