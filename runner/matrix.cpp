// Matrix expansion, test ids and markers.
#include "runner/matrix.h"

#include <algorithm>
#include <cctype>

namespace meshtest::runner {

const std::vector<Parallelism>& supported_parallelisms() {
  static const std::vector<Parallelism> v = {Parallelism::SingleDevice};
  return v;
}

const std::vector<RunMode>& supported_run_modes() {
  static const std::vector<RunMode> v = {RunMode::Inference};
  return v;
}

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Markers of DESIGN.md §3: run mode, parallelism, status, group, schedule,
// supported archs (with '-' also as '_'), bring-up status, YAML markers.
std::vector<std::string> markers_for(const TestCase& c) {
  std::vector<std::string> m = {std::string(run_mode_name(c.run_mode)), std::string(parallelism_name(c.parallelism)),
                                std::string(config::status_marker(c.expectation.status))};
  if (!c.info.group.empty()) m.push_back(c.info.group);
  const bool weekly = std::find(c.expectation.markers.begin(), c.expectation.markers.end(), "weekly") !=
                      c.expectation.markers.end();
  if (!weekly) m.push_back("nightly");
  for (std::string arch : {"n150", "p150"}) m.push_back(arch);
  if (c.expectation.bringup_status) m.push_back(lower(std::string(config::bringup_name(*c.expectation.bringup_status))));
  for (const std::string& extra : c.expectation.markers) {
    m.push_back(extra);
    std::string underscored = extra;
    std::replace(underscored.begin(), underscored.end(), '-', '_');
    if (underscored != extra) m.push_back(underscored);
  }
  std::sort(m.begin(), m.end());
  m.erase(std::unique(m.begin(), m.end()), m.end());
  return m;
}

}  // namespace

std::vector<TestCase> build_matrix(const discovery::Discovery& discovery, const config::TestConfig& config) {
  std::vector<TestCase> cases;
  for (const discovery::DiscoveredLoader& loader : discovery.loaders) {
    for (const sdk::ModelInfo& info : loader.variants) {
      for (Parallelism p : supported_parallelisms()) {
        for (RunMode mode : supported_run_modes()) {
          TestCase c;
          c.loader = &loader;
          c.loader_dir = loader.dir;
          c.info = info;
          c.parallelism = p;
          c.run_mode = mode;
          c.id = make_test_id(loader.dir, info.variant, p, mode);
          if (const config::TestEntry* e = config.find(c.id)) c.expectation = *e;
          c.markers = markers_for(c);
          cases.push_back(std::move(c));
        }
      }
    }
  }
  for (const discovery::LoaderFailure& f : discovery.failures) {
    TestCase c;
    c.id = f.dir;
    c.loader_dir = f.dir;
    c.loader_error = f.error;
    c.markers = {"loader_error"};
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace meshtest::runner
