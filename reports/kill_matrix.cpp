// Kill matrix of a mutation run: built from stored results, printed, as JSON.
#include "reports/kill_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace meshtest::reports {

namespace {

std::string fixed(double value, int decimals) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

bool counts_as_failure(Outcome outcome) { return outcome == Outcome::Failed || outcome == Outcome::Error; }

// The last attempt of every case of a run, by test id.
std::map<std::string, const CaseResult*> last_attempts(const std::vector<CaseResult>& results) {
  std::map<std::string, const CaseResult*> by_id;
  for (const CaseResult& r : results) {
    const CaseResult*& slot = by_id[r.test_id];
    if (slot == nullptr || r.attempt >= slot->attempt) slot = &r;
  }
  return by_id;
}

// The first words of a message, for a matrix cell.
std::string abbreviated(const std::string& message) {
  constexpr size_t kMax = 60;
  const std::string line = message.substr(0, message.find('\n'));
  return line.size() <= kMax ? line : line.substr(0, kMax - 3) + "...";
}

}  // namespace

bool KillRow::killed() const { return caught() > 0; }

int KillRow::caught() const {
  int n = 0;
  for (const KillCell& cell : cells) n += cell.caught ? 1 : 0;
  return n;
}

int KillMatrix::killed() const {
  int n = 0;
  for (const KillRow& row : rows) n += row.killed() ? 1 : 0;
  return n;
}

double KillMatrix::score() const { return rows.empty() ? 0.0 : static_cast<double>(killed()) / rows.size(); }

std::vector<std::string> KillMatrix::survivors() const {
  std::vector<std::string> names;
  for (const KillRow& row : rows) {
    if (!row.killed()) names.push_back(row.mutant);
  }
  return names;
}

double ClassScore::score() const { return mutants == 0 ? 0.0 : static_cast<double>(killed) / mutants; }

std::vector<ClassScore> KillMatrix::class_scores() const {
  std::vector<ClassScore> scores;
  for (const KillRow& row : rows) {
    const std::string name = row.mutant_class.empty() ? "(unclassed)" : row.mutant_class;
    auto it = std::find_if(scores.begin(), scores.end(), [&](const ClassScore& c) { return c.mutant_class == name; });
    if (it == scores.end()) it = scores.insert(scores.end(), ClassScore{name, 0, 0, {}});
    ++it->mutants;
    if (row.killed()) {
      ++it->killed;
    } else {
      it->survivors.push_back(row.mutant);
    }
  }
  return scores;
}

std::string failure_metric(const CaseResult& r) {
  if (r.failure_kind == FailureKind::Exception) return "exception in " + (r.phase.empty() ? "?" : r.phase);
  if (r.failure_kind != FailureKind::None) return std::string(failure_kind_name(r.failure_kind));
  if (r.assert_pcc && !std::isnan(r.pcc) && !std::isnan(r.required_pcc) && r.pcc < r.required_pcc) {
    return "pcc " + fixed(r.pcc, 4);
  }
  if (r.assert_atol && !std::isnan(r.atol) && !std::isnan(r.required_atol) && r.atol > r.required_atol) {
    return "atol " + fixed(r.atol, 4);
  }
  return abbreviated(r.error_message.empty() ? std::string(outcome_name(r.outcome)) : r.error_message);
}

KillMatrix build_kill_matrix(const std::string& baseline_run_id, const std::vector<CaseResult>& baseline,
                             const std::vector<MutantRun>& mutant_runs) {
  KillMatrix matrix;
  matrix.baseline_run_id = baseline_run_id;
  for (const auto& [id, result] : last_attempts(baseline)) {
    if (result->outcome == Outcome::Passed) {
      matrix.cases.push_back(id);
    } else {
      matrix.excluded.push_back(id + " (" + std::string(outcome_name(result->outcome)) + ")");
    }
  }
  for (const MutantRun& run : mutant_runs) {
    const std::map<std::string, const CaseResult*> results = last_attempts(run.results);
    KillRow row{run.mutant, run.run_id, {}, run.mutant_class};
    for (const std::string& id : matrix.cases) {
      const auto it = results.find(id);
      if (it == results.end()) {
        row.cells.push_back({true, "no result"});
      } else if (counts_as_failure(it->second->outcome)) {
        row.cells.push_back({true, failure_metric(*it->second)});
      } else {
        row.cells.push_back({});
      }
    }
    matrix.rows.push_back(std::move(row));
  }
  return matrix;
}

// The per-class table: class, mutants, killed, % and the class's survivors.
std::string format_class_scores(const KillMatrix& m) {
  const std::vector<ClassScore> scores = m.class_scores();
  size_t width = 5;
  for (const ClassScore& c : scores) width = std::max(width, c.mutant_class.size());
  auto padded = [](std::string text, size_t to, bool right) {
    const std::string pad(text.size() < to ? to - text.size() : 0, ' ');
    return right ? pad + text : text + pad;
  };
  std::string out = "score per class:\n" + padded("class", width, false) + "  mutants  killed       %  survivors\n";
  for (const ClassScore& c : scores) {
    std::string names;
    for (const std::string& name : c.survivors) names += (names.empty() ? "" : ", ") + name;
    out += padded(c.mutant_class, width, false) + "  " + padded(std::to_string(c.mutants), 7, true) + "  " +
           padded(std::to_string(c.killed), 6, true) + "  " + padded(fixed(100.0 * c.score(), 1), 6, true) + "  " +
           (names.empty() ? "-" : names) + "\n";
  }
  return out;
}

std::string format_kill_matrix(const KillMatrix& m) {
  std::string out = "kill matrix: " + std::to_string(m.rows.size()) + " mutant(s) x " + std::to_string(m.cases.size()) +
                    " case(s), baseline run " + m.baseline_run_id + "\n";
  for (const std::string& excluded : m.excluded) out += "  excluded, fails without a mutant: " + excluded + "\n";
  for (size_t c = 0; c < m.cases.size(); ++c) out += "  [" + std::to_string(c + 1) + "] " + m.cases[c] + "\n";
  size_t width = 6;
  for (const KillRow& row : m.rows) width = std::max(width, row.mutant.size());
  out += "\n" + std::string("mutant") + std::string(width - 6 + 2, ' ') + "caught  cases 1..N (x caught, . missed)\n";
  for (const KillRow& row : m.rows) {
    std::string marks;
    for (const KillCell& cell : row.cells) marks += cell.caught ? 'x' : '.';
    const std::string caught = std::to_string(row.caught()) + "/" + std::to_string(row.cells.size());
    out += row.mutant + std::string(width - row.mutant.size() + 2, ' ') + caught +
           std::string(caught.size() < 8 ? 8 - caught.size() : 1, ' ') + marks + "\n";
  }
  out += "\nwhat caught each killed mutant:\n";
  for (const KillRow& row : m.rows) {
    if (!row.killed()) continue;
    std::string caught_by;
    for (size_t c = 0; c < row.cells.size(); ++c) {
      if (!row.cells[c].caught) continue;
      caught_by += (caught_by.empty() ? "" : ", ") + ("[" + std::to_string(c + 1) + "] " + row.cells[c].metric);
    }
    out += "  " + row.mutant + ": " + caught_by + "\n";
  }
  out += "\n" + format_class_scores(m);
  const std::vector<std::string> survivors = m.survivors();
  out += "\nmutation score: " + std::to_string(m.killed()) + "/" + std::to_string(m.rows.size()) + " killed (" +
         fixed(100.0 * m.score(), 1) + "%)\n";
  std::string names;
  for (const std::string& name : survivors) names += (names.empty() ? "" : ", ") + name;
  out += "surviving mutants (" + std::to_string(survivors.size()) + "): " + (names.empty() ? "none" : names) + "\n";
  return out;
}

nlohmann::json kill_matrix_json(const KillMatrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (const KillRow& row : m.rows) {
    nlohmann::json cells = nlohmann::json::object();
    for (size_t c = 0; c < row.cells.size(); ++c) {
      cells[m.cases[c]] = {{"caught", row.cells[c].caught}, {"metric", row.cells[c].metric}};
    }
    rows.push_back({{"mutant", row.mutant},
                    {"class", row.mutant_class},
                    {"run_id", row.run_id},
                    {"killed", row.killed()},
                    {"cases", cells}});
  }
  nlohmann::json classes = nlohmann::json::array();
  for (const ClassScore& c : m.class_scores()) {
    classes.push_back({{"class", c.mutant_class},
                       {"mutants", c.mutants},
                       {"killed", c.killed},
                       {"score", c.score()},
                       {"survivors", c.survivors}});
  }
  return {{"baseline_run_id", m.baseline_run_id},
          {"cases", m.cases},
          {"excluded", m.excluded},
          {"mutants", rows},
          {"killed", m.killed()},
          {"total", m.rows.size()},
          {"score", m.score()},
          {"classes", classes},
          {"survivors", m.survivors()}};
}

}  // namespace meshtest::reports
