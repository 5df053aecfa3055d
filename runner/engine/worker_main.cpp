// Worker process body: heartbeat thread, phase messages, the final record.
#include "runner/engine/worker_main.h"

#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/buffer_pool.h"
#include "runner/engine/process_stats.h"
#include "runner/engine/worker_protocol.h"

namespace meshtest::runner {

namespace {

// Whole-message writes to the status pipe, serialized between threads.
class StatusWriter {
 public:
  explicit StatusWriter(int fd) : fd_(fd) {}
  void write(const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t done = 0;
    while (done < message.size()) {
      const ssize_t n = ::write(fd_, message.data() + done, message.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // the parent is gone
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
  std::mutex mutex_;
};

// Sends a heartbeat every kHeartbeatInterval until destroyed.
class Heartbeat {
 public:
  explicit Heartbeat(StatusWriter& out) : thread_([this, &out] { beat(out); }) {}
  ~Heartbeat() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

 private:
  void beat(StatusWriter& out) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      out.write(encode_heartbeat_message());
      wake_.wait_for(lock, kHeartbeatInterval, [this] { return stop_; });
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

// "attempt<TAB>release_above_rss_bytes<TAB>test id"
std::string encode_worker_request(const WorkerRequest& request) {
  return std::to_string(request.attempt) + "\t" + std::to_string(request.release_above_rss_bytes) + "\t" +
         request.test_id;
}

WorkerRequest decode_worker_request(const std::string& payload) {
  WorkerRequest r;
  const size_t first = payload.find('\t');
  const size_t second = first == std::string::npos ? first : payload.find('\t', first + 1);
  if (second == std::string::npos) return {payload, 1, 0};
  r.attempt = std::atoi(payload.substr(0, first).c_str());
  r.release_above_rss_bytes = std::atoll(payload.substr(first + 1, second - first - 1).c_str());
  r.test_id = payload.substr(second + 1);
  return r;
}

void release_retained_memory_above(int64_t above_bytes) {
  if (above_bytes <= 0 || process_rss_bytes(getpid()) <= above_bytes) return;
  buffer_pool::trim();
  malloc_trim(0);
}

int run_case_in_worker(const TestCase& test_case, const PipelineOptions& options, const WorkerRequest& request,
                       int status_fd) {
  const int attempt = request.attempt;
  StatusWriter out(status_fd);
  reports::CaseResult result;
  {
    Heartbeat heartbeat(out);
    result = run_case(test_case, options, [&out](Phase phase) { out.write(encode_phase_message(phase_name(phase))); });
  }
  result.attempt = attempt;
  out.write(encode_result_message(result));
  // Before the status pipe closes: the parent hands this worker its next case only after that.
  release_retained_memory_above(request.release_above_rss_bytes);
  return 0;
}

}  // namespace meshtest::runner
