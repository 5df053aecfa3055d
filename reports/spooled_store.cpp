// SpooledStore: retries with backoff over fresh connections, and the spool file.
#include "reports/spooled_store.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/atomic_file.h"
#include "reports/result_json.h"
#include "reports/sql_database.h"

namespace meshtest::reports {

namespace {

constexpr double kFirstBackoffSeconds = 0.1;
constexpr double kMaxBackoffSeconds = 5;

std::string seconds_text(double seconds) { return std::to_string(static_cast<long>(std::lround(seconds))); }

}  // namespace

SpooledStore::SpooledStore(std::unique_ptr<ResultStore> store, Opener reopen, std::string spool_path,
                           double retry_seconds)
    : store_(std::move(store)),
      reopen_(std::move(reopen)),
      spool_path_(std::move(spool_path)),
      retry_seconds_(retry_seconds) {}

bool SpooledStore::try_write(const std::function<void(ResultStore&)>& write) {
  const Clock::time_point now = Clock::now();
  try {
    if (!store_) store_ = reopen_();
    write(*store_);
    outage_ = false;
    return true;
  } catch (const SqlConnectionLost& e) {
    store_.reset();
    last_error_ = e.what();
    if (!outage_) {
      outage_ = true;
      outage_since_ = now;
      backoff_seconds_ = kFirstBackoffSeconds;
    } else {
      backoff_seconds_ = std::min(kMaxBackoffSeconds, backoff_seconds_ * 2);
    }
    const double down = std::chrono::duration<double>(now - outage_since_).count();
    if (down >= retry_seconds_) {
      throw StoreUnreachable("the results store stayed unreachable for " + seconds_text(down) +
                             " s (last error: " + last_error_ + ")");
    }
    next_try_ = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(backoff_seconds_));
    return false;
  }
}

bool SpooledStore::try_flush() {
  while (!pending_.empty()) {
    const Pending& p = pending_.front();
    if (!try_write([&](ResultStore& s) { s.record(p.run_id, p.result); })) return false;
    pending_.pop_front();
  }
  return true;
}

void SpooledStore::write_waiting(const std::function<void(ResultStore&)>& write) {
  while (!try_write(write)) std::this_thread::sleep_until(next_try_);
}

void SpooledStore::begin_run(const RunInfo& run) {
  write_waiting([&](ResultStore& s) { s.begin_run(run); });
}

void SpooledStore::flush() {
  const size_t before = pending_.size();
  while (!try_flush()) std::this_thread::sleep_until(next_try_);
  if (before > 0) save_spool();
}

void SpooledStore::finish_run(const std::string& run_id, const std::string& finished_at) {
  flush();
  write_waiting([&](ResultStore& s) { s.finish_run(run_id, finished_at); });
}

void SpooledStore::mark_not_run(const std::string& run_id, const std::string& arch,
                                const std::vector<std::string>& test_ids, const std::string& reason) {
  write_waiting([&](ResultStore& s) { s.mark_not_run(run_id, arch, test_ids, reason); });
}

void SpooledStore::mark_interrupted(const std::string& run_id, const std::string& at, const std::string& by) {
  flush();
  write_waiting([&](ResultStore& s) { s.mark_interrupted(run_id, at, by); });
}

void SpooledStore::record(const std::string& run_id, const CaseResult& result) {
  pending_.push_back({run_id, result});
  const bool had_spool = pending_.size() > 1;
  try {
    if (!outage_ || Clock::now() >= next_try_) try_flush();
  } catch (const StoreUnreachable&) {
    save_spool();
    throw;
  }
  if (had_spool || !pending_.empty()) save_spool();
}

void SpooledStore::save_spool() const {
  if (pending_.empty()) {
    std::filesystem::remove(spool_path_);
    return;
  }
  std::string text;
  for (const Pending& p : pending_) {
    nlohmann::json line = result_to_json(p.result);
    line["run_id"] = p.run_id;
    text += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  write_file_atomically(spool_path_, text, "results spool");
}

size_t replay_spool(ResultStore& store, const std::string& path, const std::string& run_id) {
  std::ifstream in(path);
  if (!in) return 0;
  std::vector<CaseResult> results;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const nlohmann::json json = nlohmann::json::parse(line);
    if (json.value("run_id", "") == run_id) results.push_back(result_from_json(json));
  }
  store.record_batch(run_id, results);
  in.close();
  std::filesystem::remove(path);
  return results.size();
}

}  // namespace meshtest::reports
