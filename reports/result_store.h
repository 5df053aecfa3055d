// Where results are kept: an abstract store (SQLite embedded by default;
// other back ends implement the same interface). Results are written as each
// case finishes, so a killed run loses nothing already recorded.
// Schema: docs/results-schema.md.
#pragma once

#include <memory>
#include <string>

#include "reports/case_result.h"

namespace meshtest::reports {

class ResultStore {
 public:
  virtual ~ResultStore() = default;
  virtual void begin_run(const RunInfo& run) = 0;
  virtual void record(const std::string& run_id, const CaseResult& result) = 0;
  virtual void finish_run(const std::string& run_id, const std::string& finished_at) = 0;
  virtual int schema_version() = 0;
};

// Opens the store named by `url`: a file path (SQLite).
std::unique_ptr<ResultStore> open_store(const std::string& url);

}  // namespace meshtest::reports
