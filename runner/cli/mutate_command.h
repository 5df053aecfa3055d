// `meshtest mutate [run options and selection]`: runs the selection once
// without a mutant (the baseline) and once per catalogued mutant
// (core/mutation.h), each as a child `meshtest run` with MESHTEST_MUTANT set
// and its own run id in the results store, then prints the kill matrix, the
// score per class of mutant and the mutation score (reports/kill_matrix.h).
#pragma once

#include <string>
#include <vector>

namespace meshtest::runner {

struct MutateOptions {
  std::string db;                    // results store every run writes to (and the matrix is read from)
  std::vector<std::string> mutants;  // --mutants a,b; empty: the whole catalogue
  std::string kill_matrix_json;      // --kill-matrix FILE
  std::vector<std::string> run_args;  // everything else, passed to each `meshtest run`
};

// 0 when the matrix was made, 2 for an unknown mutant or a child run that
// stopped on a usage/config error (its output is printed), 5 for an empty
// selection, 1 when a child run could not complete.
int cmd_mutate(const MutateOptions& options);

}  // namespace meshtest::runner
