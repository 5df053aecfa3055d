// Host memory of one worker running many cases through a PJRT plugin: the
// mnist MLP and resnet_tiny inference cases, alternately, N times in this
// process (as a worker runs the cases it is given: one client, reused), with
// the resident set size printed every N/5 cases. Flat means every buffer,
// event and executable the cases made was freed.
// Usage: pjrt_worker_rss [N]   (default 500)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "runner/collection/collection.h"
#include "runner/pipeline/case_pipeline.h"

namespace {

long rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace meshtest::runner;
  const int n = argc > 1 ? std::atoi(argv[1]) : 500;
  CommonOptions o;
  o.models_roots = {MESHTEST_MODELS_ROOT};
  o.selection.keyword = "(mnist or resnet_tiny) and single_device and inference";
  const std::unique_ptr<Collected> collected = collect_cases(o, &std::cerr);
  if (!collected || collected->selection.selected.empty()) {
    std::cerr << "no cases collected\n";
    return 1;
  }
  PipelineOptions options;
  options.arch = meshtest::runtime::arch_profile("n150");
  options.chip = options.arch.chip;
  options.backend = "pjrt";
  options.pjrt_plugin = MESHTEST_PJRT_PLUGIN;
  options.compile.use_cache = false;
  const auto& cases = collected->selection.selected;
  const auto start = std::chrono::steady_clock::now();
  int failed = 0;
  for (int i = 1; i <= n; ++i) {
    const meshtest::reports::CaseResult r = run_case(*cases[static_cast<size_t>(i) % cases.size()], options);
    failed += r.outcome == meshtest::reports::Outcome::Passed ? 0 : 1;
    if (i == 1 || i % std::max(1, n / 5) == 0) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("cases %4d  RSS %7ld KiB  %.1f ms/case\n", i, rss_kib(), s * 1e3 / i);
    }
  }
  std::printf("%d of %d cases did not pass\n", failed, n);
  return failed == 0 ? 0 : 1;
}
