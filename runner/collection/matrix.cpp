// Matrix expansion, test ids and markers.
#include "runner/collection/matrix.h"

#include <algorithm>
#include <cctype>

#include "config/arch_names.h"
#include "config/arch_overrides.h"

namespace meshtest::runner {

const std::vector<Parallelism>& supported_parallelisms() {
  static const std::vector<Parallelism> v = {Parallelism::SingleDevice, Parallelism::DataParallel,
                                             Parallelism::TensorParallel};
  return v;
}

const std::vector<RunMode>& supported_run_modes() {
  static const std::vector<RunMode> v = {RunMode::Inference, RunMode::Training};
  return v;
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// `name`, and its '_' spelling when it has a '-' (n300-llmbox -> n300_llmbox).
void add_with_underscores(std::vector<std::string>& markers, const std::string& name) {
  markers.push_back(name);
  std::string underscored = name;
  std::replace(underscored.begin(), underscored.end(), '-', '_');
  if (underscored != name) markers.push_back(std::move(underscored));
}

// tensor_parallel is offered for variants whose loader defines a mesh (cheap:
// no model is built); a mesh that does not fit an arch is a skip at run time.
bool offers(Parallelism p, const discovery::DiscoveredLoader& loader, const sdk::ModelInfo& info) {
  if (p != Parallelism::TensorParallel) return true;
  if (!loader.loader) return false;  // nothing to ask (a matrix built from infos alone)
  try {
    return loader.loader->mesh_config(info.variant, 2).has_value();
  } catch (const std::exception&) {
    return true;  // it has a mesh config, just none for 2 devices
  }
}

TestCase placeholder_case(const std::string& id, const config::Placeholder& p) {
  TestCase c;
  c.id = id;
  c.placeholder = true;
  c.info.model = p.name;
  c.info.group = "red";  // planned models are the important ones
  c.expectation = p.entry;
  c.expectation.bringup_status = p.bringup();
  c.markers = markers_for(c);
  c.markers.push_back("placeholder");
  std::sort(c.markers.begin(), c.markers.end());
  return c;
}

// Schedule: a YAML `weekly` or `nightly` marker decides; otherwise GENERALITY
// models are weekly (as in the seed runner) and every other group nightly.
std::string schedule_marker(const TestCase& c) {
  const std::vector<std::string>& yaml = c.expectation.markers;
  auto has = [&](const char* name) { return std::find(yaml.begin(), yaml.end(), name) != yaml.end(); };
  if (has("weekly")) return "weekly";
  if (has("nightly")) return "nightly";
  return c.info.group == "generality" ? "weekly" : "nightly";
}

}  // namespace

std::vector<std::string> markers_for(const TestCase& c) {
  const config::TestEntry& e = c.expectation;
  std::vector<std::string> m = {std::string(run_mode_name(c.run_mode)), std::string(parallelism_name(c.parallelism)),
                                std::string(config::status_marker(e.status))};
  if (!c.info.group.empty()) m.push_back(c.info.group);
  m.push_back(schedule_marker(c));
  const auto& archs = e.supported_archs.empty() ? config::default_supported_archs() : e.supported_archs;
  for (const std::string& arch : archs) add_with_underscores(m, arch);
  if (e.bringup_status) m.push_back(lower(config::bringup_name(*e.bringup_status)));
  if (e.flaky) m.push_back("flaky");
  for (const std::string& extra : e.markers) add_with_underscores(m, extra);
  std::sort(m.begin(), m.end());
  m.erase(std::unique(m.begin(), m.end()), m.end());
  return m;
}

std::vector<TestCase> build_matrix(const discovery::Discovery& discovery, const config::TestConfig& config,
                                   const MatrixOptions& options) {
  std::vector<TestCase> cases;
  for (const discovery::DiscoveredLoader& loader : discovery.loaders) {
    for (const sdk::ModelInfo& info : loader.variants) {
      for (Parallelism p : supported_parallelisms()) {
        if (!offers(p, loader, info)) continue;
        for (RunMode mode : supported_run_modes()) {
          TestCase c;
          c.loader = &loader;
          c.loader_dir = loader.dir;
          c.info = info;
          c.parallelism = p;
          c.run_mode = mode;
          c.id = make_test_id(loader.dir, info.variant, p, mode);
          if (const config::TestEntry* e = config.find(c.id)) {
            c.expectation = e->arch_overrides.empty() ? *e : config::resolve_for_arch(*e, options.arch);
          }
          c.markers = markers_for(c);
          cases.push_back(std::move(c));
        }
      }
    }
  }
  for (const auto& [id, p] : config.placeholders) cases.push_back(placeholder_case(id, p));
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
