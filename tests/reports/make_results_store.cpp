// Fills a results store with synthetic runs (deterministic), for the dashboard
// browser test and the store/dashboard benchmarks. Prints how long the bulk
// insert took. Cases spread over two arches (every third on n300-llmbox), two
// groups, xfails, failures that come and go, placeholders (every 40th).
//   make_results_store DB_OR_URL [--runs R] [--cases C] [--hostile]
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include "reports/result_store.h"

using namespace meshtest::reports;

namespace {

CaseResult synthetic(int run, int c, std::mt19937& rng, bool hostile) {
  std::uniform_real_distribution<double> unit(0, 1);
  CaseResult r;
  const std::string model = "model" + std::to_string(c / 10);
  const std::string variant = "v" + std::to_string(c % 10);
  r.loader_dir = model + "/native";
  r.model = model;
  r.variant = variant;
  r.parallelism = c % 3 == 0 ? "tensor_parallel" : "single_device";
  r.run_mode = c % 7 == 0 ? "training" : "inference";
  r.test_id = r.loader_dir + "-" + variant + "-" + r.parallelism + "-" + r.run_mode;
  r.group = c % 2 ? "generality" : "red";
  r.arch = c % 3 == 0 ? "n300-llmbox" : "n150";
  r.mesh = c % 3 == 0 ? "2x4" : "1x1";
  r.markers = {r.run_mode, r.parallelism, "nightly"};
  r.status = c % 11 == 0 ? "KNOWN_FAILURE_XFAIL" : c % 5 == 0 ? "UNSPECIFIED" : "EXPECTED_PASSING";
  r.required_pcc = 0.99;
  r.pcc = 0.99 + 0.01 * unit(rng);
  r.atol = 0.05 * unit(rng);
  r.rel_l2 = 0.01 * unit(rng);
  r.outputs = {{"logits", r.pcc, r.atol, r.rel_l2, true}};
  r.seconds = {0.1 * unit(rng), 0.2 * unit(rng), 1.5 * unit(rng), 2.0 * unit(rng), 0.05};
  r.wall_seconds = r.seconds.total();
  r.peak_host_rss_bytes = 200'000'000 + static_cast<int64_t>(1e8 * unit(rng));
  r.started_at = "2026-11-" + std::to_string(10 + run % 18) + "T01:00:00.000Z";
  r.finished_at = r.started_at;
  const bool broken = c % 11 == 0 || (c % 97 == 0 && run % 2 == 1) || (c % 53 == 0 && run >= 15);
  if (broken) {
    r.outcome = c % 11 == 0 ? Outcome::Xfailed : Outcome::Failed;
    r.pcc = 0.3 + 0.5 * unit(rng);
    r.outputs[0] = {"logits", r.pcc, 0.9, 0.5, false};
    r.bringup_status = "INCORRECT_RESULT";
    r.phase = "compare";
    r.error_message = "output 'logits': PCC " + std::to_string(r.pcc).substr(0, 5) + " < required 0.99";
  } else {
    r.outcome = r.status == "KNOWN_FAILURE_XFAIL" ? Outcome::Xpassed : Outcome::Passed;
    r.bringup_status = "PASSED";
    r.phase = "compare";
  }
  if (c % 40 == 39) {  // a planned model: a placeholder, skipped with its bring-up status
    r.outcome = Outcome::Skipped;
    r.markers.push_back("placeholder");
    r.bringup_status = "NOT_STARTED";
    r.reason = "planned: no loader yet";
    r.pcc = NAN;
    r.outputs.clear();
    r.error_message.clear();
  }
  if (hostile && c == 1) {
    r.model = "<script>document.title='pwned'</script>";
    r.test_id = "hostile/native-<img src=x onerror=alert(1)>-single_device-inference";
    r.outcome = Outcome::Failed;
    r.bringup_status = "FAILED_RUNTIME";
    r.error_message = "<script>document.title='pwned'</script> & \"quotes\"";
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: make_results_store DB_OR_URL [--runs R] [--cases C] [--hostile]\n";
    return 2;
  }
  int runs = 2, cases = 100;
  bool hostile = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::atoi(argv[++i]);
    else if (a == "--cases" && i + 1 < argc) cases = std::atoi(argv[++i]);
    else if (a == "--hostile") hostile = true;
  }
  auto store = open_store(argv[1]);
  double insert_seconds = 0, insert_cpu_seconds = 0;  // wall; CPU of this process (the machine may be busy)
  for (int run = 0; run < runs; ++run) {
    std::mt19937 rng(static_cast<unsigned>(run * 7919 + 1));
    std::vector<CaseResult> results;
    results.reserve(static_cast<size_t>(cases));
    for (int c = 0; c < cases; ++c) results.push_back(synthetic(run, c, rng, hostile));
    RunInfo info;
    char id[64];
    std::snprintf(id, sizeof id, "202611%02dT%02d0000Z-%06d", 1 + run / 24, run % 24, run);
    info.run_id = id;
    info.git_sha = "deadbee";
    info.host = "bench";
    info.arch = "n150";
    char started[32];
    std::snprintf(started, sizeof started, "2026-11-%02dT%02d:00:00.000Z", 1 + run / 24, run % 24);
    info.started_at = started;
    store->begin_run(info);
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    store->record_batch(info.run_id, results);
    insert_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    insert_cpu_seconds += static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    store->finish_run(info.run_id, info.started_at);
  }
  std::printf("inserted %d results (%d run(s) x %d cases) in %.3f s wall, %.3f s CPU (%.0f results/s)\n",
              runs * cases, runs, cases, insert_seconds, insert_cpu_seconds, runs * cases / insert_seconds);
  return 0;
}
