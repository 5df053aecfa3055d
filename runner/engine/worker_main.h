// The worker side of process isolation: runs one case in a forked worker,
// reporting each phase and a heartbeat (from a separate thread, every
// kHeartbeatInterval) over the status pipe, then the finished record.
#pragma once

#include <chrono>
#include <string>

#include "runner/pipeline/case_pipeline.h"

namespace meshtest::runner {

constexpr std::chrono::milliseconds kHeartbeatInterval{100};

// A worker request names the case and the attempt number.
struct WorkerRequest {
  std::string test_id;
  int attempt = 1;
};
std::string encode_worker_request(const WorkerRequest& request);
WorkerRequest decode_worker_request(const std::string& payload);

// Runs the case; returns the worker's exit status (0 once the record is sent).
int run_case_in_worker(const TestCase& test_case, const PipelineOptions& options, int attempt, int status_fd);

}  // namespace meshtest::runner
