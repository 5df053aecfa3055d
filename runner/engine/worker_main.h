// The worker side of process isolation: runs one case in a forked worker,
// reporting each phase and a heartbeat (from a separate thread, every
// kHeartbeatInterval) over the status pipe, then the finished record. A warm
// worker (--cases-per-worker) then gives back retained memory when its RSS
// is above what the request allows, before it takes another case.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "runner/pipeline/case_pipeline.h"

namespace meshtest::runner {

constexpr std::chrono::milliseconds kHeartbeatInterval{100};

// A worker request names the case and the attempt number.
struct WorkerRequest {
  std::string test_id;
  int attempt = 1;
  // After the case: above this resident size the worker frees what it keeps
  // for reuse (the buffer pool, malloc's free lists); 0: never.
  int64_t release_above_rss_bytes = 0;
};
std::string encode_worker_request(const WorkerRequest& request);
WorkerRequest decode_worker_request(const std::string& payload);

// Runs the case; returns the worker's exit status (0 once the record is sent).
int run_case_in_worker(const TestCase& test_case, const PipelineOptions& options, const WorkerRequest& request,
                       int status_fd);

// Frees the memory this process keeps for reuse (buffer_pool::trim, malloc_trim)
// when its resident set is above `above_bytes` (> 0).
void release_retained_memory_above(int64_t above_bytes);

}  // namespace meshtest::runner
