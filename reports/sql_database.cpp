// Row accessors and the retrying write transaction shared by every back end.
#include "reports/sql_database.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

#include "core/error.h"

namespace meshtest::reports {

double SqlRow::real(size_t i) const {
  const auto& cell = cells_.at(i);
  if (!cell || cell->empty()) return NAN;
  return std::strtod(cell->c_str(), nullptr);
}

int64_t SqlRow::integer(size_t i) const {
  const auto& cell = cells_.at(i);
  if (!cell || cell->empty()) return 0;
  if (*cell == "t" || *cell == "true") return 1;  // PostgreSQL booleans
  return std::strtoll(cell->c_str(), nullptr, 10);
}

void with_transaction(SqlDatabase& db, const std::function<void()>& body) {
  constexpr int kAttempts = 50;
  std::minstd_rand jitter(std::random_device{}());
  for (int attempt = 1;; ++attempt) {
    try {
      db.begin_write();
      try {
        body();
        db.exec("COMMIT");
        return;
      } catch (...) {
        try {
          db.exec("ROLLBACK");
        } catch (...) {
        }
        throw;
      }
    } catch (const SqlBusy& e) {
      if (attempt == kAttempts) {
        throw Error(db.describe() + ": still busy after " + std::to_string(kAttempts) + " attempts: " + e.what());
      }
      const int ms = 5 + static_cast<int>(jitter() % static_cast<unsigned>(10 * attempt));
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
  }
}

}  // namespace meshtest::reports
