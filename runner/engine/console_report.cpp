// Per-case lines and the run summary.
#include "runner/engine/console_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

namespace meshtest::runner {

using reports::CaseResult;
using reports::Outcome;

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string format_bytes(int64_t bytes) {
  char buf[32];
  if (bytes < 1024) std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else if (bytes < (int64_t{1} << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  else if (bytes < (int64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / 1048576.0);
  else std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / 1073741824.0);
  return buf;
}

// The first `keep` items of a "; "-separated list, and how many more there are
// (the whole list stays in the results store).
std::string first_items(const std::string& list, size_t keep) {
  size_t end = 0;
  for (size_t i = 0, from = 0; i < keep; ++i, from = end + 2) {
    end = list.find("; ", from);
    if (end == std::string::npos) return list;  // `keep` items or fewer
  }
  size_t more = 1;
  for (size_t at = list.find("; ", end + 2); at != std::string::npos; at = list.find("; ", at + 2)) ++more;
  return list.substr(0, end) + "; ... and " + std::to_string(more) + " more (sharding_fallbacks in the results store)";
}

// Mesh cases: the mesh, what moved between chips, each chip's peak DRAM.
void print_mesh_line(std::ostream& out, const CaseResult& r) {
  if (r.mesh.empty() || r.mesh == "1x1" || r.per_chip_peak_dram_bytes.empty()) return;
  out << "         mesh " << r.mesh << ": " << r.collectives_executed << " collectives, "
      << format_bytes(r.bytes_moved_between_chips) << " between chips, per-chip peak DRAM [";
  for (size_t c = 0; c < r.per_chip_peak_dram_bytes.size(); ++c) {
    out << (c ? ", " : "") << format_bytes(r.per_chip_peak_dram_bytes[c]);
  }
  out << "], leaked " << format_bytes(r.device_bytes_leaked) << "\n";
  if (!r.sharding_fallbacks.empty()) out << "         sharding fallbacks: " << first_items(r.sharding_fallbacks, 3) << "\n";
}

}  // namespace

bool is_unexpected(const CaseResult& r) {
  // A case marked flaky (YAML `flaky: true`) is recorded but never fails the run.
  if (std::find(r.markers.begin(), r.markers.end(), "flaky") != r.markers.end()) return false;
  if (r.outcome == Outcome::Error || r.outcome == Outcome::Xpassed) return true;
  return r.outcome == Outcome::Failed && r.status == "EXPECTED_PASSING";
}

void print_case_line(std::ostream& out, const CaseResult& r) {
  char pcc[32] = "     -";
  if (std::isfinite(r.pcc)) std::snprintf(pcc, sizeof pcc, "%.6f", r.pcc);
  char line[64];
  // A case that passed on a retry (--reruns) is flaky.
  const std::string label = r.attempt > 1 && r.outcome == Outcome::Passed ? "FLAKY" : upper(reports::outcome_name(r.outcome));
  std::snprintf(line, sizeof line, "%-8s pcc=%-9s %7.2fs  ", label.c_str(), pcc,
                r.wall_seconds);
  out << line << r.test_id << "\n";
  print_mesh_line(out, r);
  if (r.outcome == Outcome::Skipped || r.outcome == Outcome::Xfailed) {
    if (!r.reason.empty()) out << "         reason: " << r.reason << "\n";
  }
  if (r.outcome == Outcome::Failed || r.outcome == Outcome::Error || r.outcome == Outcome::Xfailed) {
    out << "         " << r.bringup_status << " in phase " << r.phase;
    if (r.failure_kind != reports::FailureKind::None) out << " (" << reports::failure_kind_name(r.failure_kind) << ")";
    out << ": " << r.error_message << "\n";
  }
  if (!r.first_bad_op.empty()) out << "         first op past its per-op thresholds: " << r.first_bad_op << "\n";
  if (!r.saved_tensors.empty()) out << "         tensors saved in " << r.saved_tensors << "\n";
  out.flush();
}

void print_summary(std::ostream& out, const std::vector<CaseResult>& results, double seconds) {
  std::map<Outcome, int> counts;
  int unexpected = 0;
  for (const CaseResult& r : results) {
    ++counts[r.outcome];
    unexpected += is_unexpected(r);
  }
  std::string parts;
  for (Outcome o : {Outcome::Passed, Outcome::Failed, Outcome::Error, Outcome::Skipped, Outcome::Xfailed,
                    Outcome::Xpassed}) {
    if (counts[o] == 0) continue;
    if (!parts.empty()) parts += ", ";
    parts += std::to_string(counts[o]) + " " + std::string(reports::outcome_name(o));
  }
  if (parts.empty()) parts = "no tests ran";
  char time[32];
  std::snprintf(time, sizeof time, "%.2fs", seconds);
  out << "== " << parts << " in " << time << " ==\n";
  if (unexpected > 0) {
    out << unexpected << " unexpected result(s):\n";
    for (const CaseResult& r : results) {
      if (is_unexpected(r)) out << "  " << upper(reports::outcome_name(r.outcome)) << " " << r.test_id << "\n";
    }
  }
}

}  // namespace meshtest::runner
