// Coverage of the device's paths by a set of cases (see device_coverage.h).
#include "runner/cli/device_coverage.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "backend/simulated_backend.h"
#include "runner/cli/coverage_reasons.h"
#include "runtime/device/kernel_variants.h"

namespace meshtest::runner {

namespace {

constexpr const char* kPassPrefix = "pass:";
constexpr const char* kFusePatternPrefix = "fuse.";
constexpr const char* kFusedOpsCounter = "fuse.ops_fused";
constexpr const char* kExpectedPassing = "EXPECTED_PASSING";  // CaseResult::status of a case expected to pass

// compile_stats "a.b=3 c.d=0" -> {a.b: 3, c.d: 0}.
std::map<std::string, long long> parse_stats(const std::string& text) {
  std::map<std::string, long long> out;
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos) continue;
    try {
      out[word.substr(0, eq)] = std::stoll(word.substr(eq + 1));
    } catch (const std::exception&) {
      // not a counter: ignored
    }
  }
  return out;
}

// The pass items a case's compile statistics reach: each pass with a
// counter above 0, each rewrite counter above 0, and any fuse pattern.
std::vector<std::string> pass_items(const std::string& compile_stats) {
  std::vector<std::string> out;
  for (const auto& [key, value] : parse_stats(compile_stats)) {
    if (value <= 0) continue;
    out.push_back(kPassPrefix + key.substr(0, key.find('.')));
    const bool pattern = key.rfind(kFusePatternPrefix, 0) == 0 && key != kFusedOpsCounter;
    const auto& rewrites = pass_rewrite_counters();
    if (pattern || std::find(rewrites.begin(), rewrites.end(), key) != rewrites.end()) out.push_back(kPassPrefix + key);
  }
  return out;
}

// Every item the device and the compiler can reach, in report order.
std::vector<CoverageItem> declared_items() {
  std::vector<CoverageItem> items;
  for (const runtime::KernelVariantItem& k : runtime::all_kernel_variants())
    items.push_back({k.name, k.mesh_only, {}, {}});
  for (const std::string& pass : backend::simulated_compiler_passes()) {
    items.push_back({kPassPrefix + pass, pass == "shard", {}, {}});
    for (std::string_view counter : pass_rewrite_counters()) {
      if (counter.substr(0, counter.find('.')) == pass) {
        items.push_back({kPassPrefix + std::string(counter), pass == "shard", {}, {}});
      }
    }
  }
  for (CoverageItem& item : items) {
    if (auto why = unreachable_reason(item.name)) item.reason = why->reason;
  }
  return items;
}

bool compiled(const reports::CaseResult& r) {
  // Compile-only stops after the compile phase; a run that executed went past it.
  return !r.kernel_variants.empty() && !(r.phase == "compile" && !r.error_message.empty());
}

}  // namespace

DeviceCoverage measure_coverage(const std::vector<reports::CaseResult>& results) {
  DeviceCoverage cov;
  cov.items = declared_items();
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < cov.items.size(); ++i) index[cov.items[i].name] = i;
  std::set<std::string> undeclared;
  for (const reports::CaseResult& r : results) {
    const std::string where = r.test_id + " @" + r.arch;
    if (!compiled(r)) {
      if (r.outcome != reports::Outcome::Skipped || !r.error_message.empty() || r.phase == "compile") {
        const std::string why = where + ": " + (r.phase.empty() ? "?" : r.phase) + ": " + r.error_message;
        (r.status == kExpectedPassing ? cov.not_compiled : cov.not_compiled_other).push_back(why);
      }
      continue;
    }
    ++cov.cases;
    std::vector<std::string> reached = r.kernel_variants;
    for (std::string& p : pass_items(r.compile_stats)) reached.push_back(std::move(p));
    std::sort(reached.begin(), reached.end());
    reached.erase(std::unique(reached.begin(), reached.end()), reached.end());
    for (const std::string& name : reached) {
      const auto at = index.find(name);
      if (at == index.end()) {
        undeclared.insert(name + " (" + where + ")");
        continue;
      }
      cov.items[at->second].cases.push_back(where);
    }
  }
  for (CoverageItem& item : cov.items) std::sort(item.cases.begin(), item.cases.end());
  cov.undeclared.assign(undeclared.begin(), undeclared.end());
  return cov;
}

std::vector<std::string> coverage_problems(const DeviceCoverage& coverage, CoverageScope scope) {
  std::vector<std::string> out;
  for (const CoverageItem& item : coverage.items) {
    const auto why = unreachable_reason(item.name);
    if (!item.cases.empty() && why && why->by_name) {
      out.push_back(item.name + ": reached by " + item.cases.front() + ", but declared unreachable (" + why->reason +
                    "): remove the stale reason (runner/cli/coverage_reasons.cpp)");
    }
    if (!item.cases.empty() || !item.reason.empty()) continue;
    if (scope == CoverageScope::SingleChip && item.mesh_only) continue;
    out.push_back(item.name + ": reached by no case (add a case that reaches it, or declare why none can)");
  }
  for (const std::string& u : coverage.undeclared) {
    out.push_back(u + ": a path no declaration names (runtime/device/kernel_variants.cpp, coverage_reasons.cpp)");
  }
  for (const std::string& n : coverage.not_compiled) out.push_back("not compiled: " + n);
  return out;
}

void print_coverage(std::ostream& out, const DeviceCoverage& coverage, const CoverageView& view) {
  size_t reached = 0, explained = 0;
  std::vector<const CoverageItem*> unreached;
  out << "REACHED (item: cases)\n";
  for (const CoverageItem& item : coverage.items) {
    if (item.cases.empty()) {
      unreached.push_back(&item);
      explained += !item.reason.empty();
      continue;
    }
    ++reached;
    out << "  " << item.name << (item.mesh_only ? " (mesh)" : "") << ": " << item.cases.size() << " case(s)";
    if (view.list_cases) {
      for (const std::string& c : item.cases) out << "\n      " << c;
    } else {
      out << ", e.g. " << item.cases.front();
    }
    out << "\n";
  }
  out << "UNREACHED (" << unreached.size() << ", " << explained << " with a reason)\n";
  for (const CoverageItem* item : unreached) {
    out << "  " << item->name << (item->mesh_only ? " (mesh)" : "");
    if (!item->reason.empty()) out << ": " << item->reason;
    out << "\n";
  }
  if (!coverage.undeclared.empty()) {
    out << "UNDECLARED paths (" << coverage.undeclared.size() << ")\n";
    for (const std::string& u : coverage.undeclared) out << "  " << u << "\n";
  }
  if (!coverage.not_compiled.empty()) {
    out << "NOT COMPILED, expected to pass (" << coverage.not_compiled.size() << ")\n";
    for (const std::string& n : coverage.not_compiled) out << "  " << n << "\n";
  }
  if (!coverage.not_compiled_other.empty()) {
    out << "NOT COMPILED, not expected to pass (" << coverage.not_compiled_other.size() << ")\n";
    for (const std::string& n : coverage.not_compiled_other) out << "  " << n << "\n";
  }
  out << reached << " of " << coverage.items.size() << " device paths reached by " << coverage.cases << " case(s); "
      << unreached.size() << " unreached (" << explained << " with a reason)\n";
}

}  // namespace meshtest::runner
