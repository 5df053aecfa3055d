// The kill matrix of a mutation run (`meshtest mutate`): which case of a
// selection catches which mutant, from the stored results of one baseline
// run (no mutant) and one run per mutant. A case that does not pass in the
// baseline is excluded (reported, never counted); a mutant is killed when at
// least one remaining case fails on it; the score is killed / mutants, overall
// and per class of bug (the catalogue's classes, core/mutation.h).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "reports/case_result.h"

namespace meshtest::reports {

// The stored results of one run with a mutant active.
struct MutantRun {
  std::string mutant;
  std::string run_id;
  std::vector<CaseResult> results;
  std::string mutant_class;  // its class in the catalogue ("" when unknown)
};

struct KillCell {
  bool caught = false;
  std::string metric;  // what caught it: "pcc 0.9312", "crash", "no result"; "" when missed
};

struct KillRow {
  std::string mutant;
  std::string run_id;
  std::vector<KillCell> cells;  // one per KillMatrix::cases
  std::string mutant_class;
  bool killed() const;
  int caught() const;
};

// The score of one class of mutants.
struct ClassScore {
  std::string mutant_class;
  int mutants = 0;
  int killed = 0;
  std::vector<std::string> survivors;
  double score() const;  // killed / mutants
};

struct KillMatrix {
  std::string baseline_run_id;
  std::vector<std::string> cases;     // test ids that pass without a mutant, the columns
  std::vector<std::string> excluded;  // "test id (outcome)" of the baseline's other cases
  std::vector<KillRow> rows;          // one per mutant, in run order

  int killed() const;
  double score() const;  // killed / rows (0 without rows)
  std::vector<std::string> survivors() const;
  // One entry per class, in the order the classes first appear in `rows`.
  std::vector<ClassScore> class_scores() const;
};

KillMatrix build_kill_matrix(const std::string& baseline_run_id, const std::vector<CaseResult>& baseline,
                             const std::vector<MutantRun>& mutant_runs);

// What made a failed case fail, in a few words ("pcc 0.9312", "timeout").
std::string failure_metric(const CaseResult& result);

// Console form: numbered cases, one line per mutant with an x per catching
// case, what caught each killed mutant, the score per class (class,
// mutants, killed, %), the score and the survivors.
std::string format_kill_matrix(const KillMatrix& matrix);
// Just the per-class table of format_kill_matrix.
std::string format_class_scores(const KillMatrix& matrix);
nlohmann::json kill_matrix_json(const KillMatrix& matrix);

}  // namespace meshtest::reports
