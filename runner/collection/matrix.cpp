// Matrix expansion, test ids and markers.
#include "runner/collection/matrix.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "config/arch_names.h"
#include "config/overrides.h"

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

const std::vector<Parallelism>& lm_strategies() {
  static const std::vector<Parallelism> v = {Parallelism::SingleDevice, Parallelism::DataParallel,
                                             Parallelism::TensorParallel, Parallelism::Fsdp,
                                             Parallelism::DataTensorParallel};
  return v;
}

const std::vector<int64_t>& lm_sequence_lengths() {
  static const std::vector<int64_t> v = {32, 128};
  return v;
}

const std::vector<int64_t>& lm_batch_sizes() {
  static const std::vector<int64_t> v = {1};
  return v;
}

namespace {

// "seq128" -> 128 (positive, at most 7 digits); nullopt otherwise.
std::optional<int64_t> number_after(std::string_view text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
  const std::string_view digits = text.substr(prefix.size());
  if (digits.empty() || digits.size() > 7) return std::nullopt;
  int64_t n = 0;
  for (char ch : digits) {
    if (ch < '0' || ch > '9') return std::nullopt;
    n = n * 10 + (ch - '0');
  }
  return n > 0 ? std::optional<int64_t>(n) : std::nullopt;
}

}  // namespace

std::optional<LmIdTail> parse_lm_id_tail(std::string_view tail) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t dash = tail.find('-', start);
    parts.push_back(tail.substr(start, dash == std::string_view::npos ? std::string_view::npos : dash - start));
    if (dash == std::string_view::npos) break;
    start = dash + 1;
  }
  if (parts.size() != 4) return std::nullopt;
  LmIdTail out{};
  bool known = false;
  for (Parallelism p : lm_strategies()) {
    if (parts[0] == parallelism_name(p)) {
      out.parallelism = p;
      known = true;
    }
  }
  if (!known) return std::nullopt;
  if (parts[1] == "prefill") {
    out.axes.phase = sdk::LmPhase::Prefill;
  } else if (parts[1] == "decode") {
    out.axes.phase = sdk::LmPhase::Decode;
  } else {
    return std::nullopt;
  }
  const std::optional<int64_t> seq = number_after(parts[2], "seq");
  const std::optional<int64_t> batch = number_after(parts[3], "batch");
  if (!seq || !batch) return std::nullopt;
  out.axes.seq_len = *seq;
  out.axes.batch_size = *batch;
  return out;
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
  if (p != Parallelism::TensorParallel && p != Parallelism::DataTensorParallel) return true;
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
  std::vector<std::string> m = {c.lm ? std::string(lm_phase_name(c.lm->phase)) : std::string(run_mode_name(c.run_mode)),
                                std::string(parallelism_name(c.parallelism)),
                                std::string(config::status_marker(e.status))};
  if (c.lm && (c.parallelism == Parallelism::TensorParallel || c.parallelism == Parallelism::DataTensorParallel)) {
    m.push_back("megatron");
  }
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

namespace {

TestCase loader_case(const discovery::DiscoveredLoader& loader, const sdk::ModelInfo& info, Parallelism p,
                     RunMode mode, std::optional<LmAxes> lm, const config::TestConfig& config,
                     const MatrixOptions& options) {
  TestCase c;
  c.loader = &loader;
  c.loader_dir = loader.dir;
  c.info = info;
  c.parallelism = p;
  c.run_mode = mode;
  c.lm = lm;
  c.id = lm ? make_lm_test_id(loader.dir, info.variant, p, *lm) : make_test_id(loader.dir, info.variant, p, mode);
  if (const config::TestEntry* e = config.find(c.id)) {
    c.expectation = config::resolve_overrides(*e, {options.arch, options.backend, options.emitc});
  }
  c.markers = markers_for(c);
  return c;
}

// The LLM matrix of one causal-LM variant: the default axes, then the other
// ones its YAML entries name.
std::vector<TestCase> lm_cases(const discovery::DiscoveredLoader& loader, const sdk::ModelInfo& info,
                               const config::TestConfig& config, const MatrixOptions& options) {
  std::vector<TestCase> cases;
  std::set<std::string> ids;
  auto add = [&](Parallelism p, const LmAxes& axes) {
    TestCase c = loader_case(loader, info, p, RunMode::Inference, axes, config, options);
    if (ids.insert(c.id).second) cases.push_back(std::move(c));
  };
  for (Parallelism p : lm_strategies()) {
    if (!offers(p, loader, info)) continue;
    for (sdk::LmPhase phase : {sdk::LmPhase::Prefill, sdk::LmPhase::Decode}) {
      for (int64_t seq : lm_sequence_lengths()) {
        for (int64_t batch : lm_batch_sizes()) add(p, {phase, seq, batch});
      }
    }
  }
  std::string prefix = loader.dir + "-";
  if (!info.variant.empty()) prefix += info.variant + "-";
  for (auto it = config.entries.lower_bound(prefix); it != config.entries.end() && it->first.rfind(prefix, 0) == 0;
       ++it) {
    const std::optional<LmIdTail> tail = parse_lm_id_tail(std::string_view(it->first).substr(prefix.size()));
    if (tail && offers(tail->parallelism, loader, info)) add(tail->parallelism, tail->axes);
  }
  return cases;
}

}  // namespace

std::vector<TestCase> build_matrix(const discovery::Discovery& discovery, const config::TestConfig& config,
                                   const MatrixOptions& options) {
  std::vector<TestCase> cases;
  for (const discovery::DiscoveredLoader& loader : discovery.loaders) {
    for (const sdk::ModelInfo& info : loader.variants) {
      for (Parallelism p : supported_parallelisms()) {
        if (!offers(p, loader, info)) continue;
        for (RunMode mode : supported_run_modes()) {
          cases.push_back(loader_case(loader, info, p, mode, std::nullopt, config, options));
        }
      }
      if (info.task == kCausalLmTask) {
        // Training stays one phase; its FSDP case (weights split over the
        // data axes, each gradient reduce-scattered back into its weight's split).
        cases.push_back(loader_case(loader, info, Parallelism::Fsdp, RunMode::Training, std::nullopt, config, options));
        for (TestCase& c : lm_cases(loader, info, config, options)) cases.push_back(std::move(c));
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
