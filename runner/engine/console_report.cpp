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

// Models that route: how many top-k choices the golden took from the device
// (runner/pipeline/device_routing.h).
void print_routing_line(std::ostream& out, const CaseResult& r) {
  if (r.routing_rows == 0) return;
  out << "         routing: the golden followed the device in " << r.routing_followed << " of " << r.routing_rows
      << " top-k choices where its own differed\n";
}

// What to do about an xfail that passed (strict: unexpected, exit 1): the
// expectation is stale, and `promote` writes the test_config edit.
const char* const kPromoteHint =
    "`meshtest promote` turns passing runs into the test_config edit (--runs N: passed in each of the last N runs, "
    "default 3; --write applies it)";

const char* const kRed = "31";
const char* const kGreen = "32";
const char* const kYellow = "33";

// The line's first word: the outcome, FLAKY for a pass on a retry, RERUN for an attempt run again.
std::string line_label(const CaseResult& r, bool final) {
  if (!final) return "RERUN";
  if (r.attempt > 1 && r.outcome == Outcome::Passed) return "FLAKY";
  return upper(reports::outcome_name(r.outcome));
}

const char* label_color(const std::string& label) {
  if (label == "PASSED") return kGreen;
  if (label == "FAILED" || label == "ERROR" || label == "XPASSED") return kRed;
  if (label == "SKIPPED") return "2";  // dim
  return kYellow;  // XFAILED, FLAKY, RERUN
}

std::string painted(const std::string& text, const char* color, const ConsoleStyle& style) {
  return style.color ? "\033[" + std::string(color) + "m" + text + "\033[0m" : text;
}

// pytest's --durations: the slowest cases, slowest first (0: every case).
void print_durations(std::ostream& out, const std::vector<CaseResult>& results, int n) {
  std::vector<const CaseResult*> sorted;
  for (const CaseResult& r : results) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const CaseResult* a, const CaseResult* b) { return a->wall_seconds > b->wall_seconds; });
  if (n > 0 && sorted.size() > static_cast<size_t>(n)) sorted.resize(static_cast<size_t>(n));
  out << "== slowest " << (n > 0 ? std::to_string(sorted.size()) + " " : "") << "durations ==\n";
  for (const CaseResult* r : sorted) {
    char line[96];
    std::snprintf(line, sizeof line, "%8.2fs  (load %.2f, golden %.2f, compile %.2f, execute %.2f)  ", r->wall_seconds,
                  r->seconds.load, r->seconds.golden, r->seconds.compile, r->seconds.execute);
    out << line << r->test_id << "\n";
  }
}

}  // namespace

bool is_tolerated(const CaseResult& r) {
  const bool marked = std::find(r.markers.begin(), r.markers.end(), "flaky") != r.markers.end();
  return marked && (r.outcome == Outcome::Failed || r.outcome == Outcome::Error || r.outcome == Outcome::Xpassed);
}

bool is_unexpected(const CaseResult& r) {
  // A case marked flaky (YAML `flaky: true`) is recorded but never fails the run.
  if (std::find(r.markers.begin(), r.markers.end(), "flaky") != r.markers.end()) return false;
  if (r.outcome == Outcome::Error || r.outcome == Outcome::Xpassed) return true;
  return r.outcome == Outcome::Failed && r.status == "EXPECTED_PASSING";
}

bool shows_case_line(const CaseResult& r, const ConsoleStyle& style, bool final) {
  if (style.verbosity >= 0) return true;
  return !final || r.outcome == Outcome::Failed || r.outcome == Outcome::Error || r.outcome == Outcome::Xpassed;
}

void print_case_line(std::ostream& out, const CaseResult& r, const ConsoleStyle& style, bool final) {
  if (!shows_case_line(r, style, final)) return;
  char pcc[32] = "     -";
  if (std::isfinite(r.pcc)) std::snprintf(pcc, sizeof pcc, "%.6f", r.pcc);
  const std::string label = line_label(r, final);
  char line[64];
  std::snprintf(line, sizeof line, " pcc=%-9s %7.2fs  ", pcc, r.wall_seconds);
  char padded[16];
  std::snprintf(padded, sizeof padded, "%-8s", label.c_str());
  out << painted(padded, label_color(label), style) << line << r.test_id << "\n";
  print_mesh_line(out, r);
  print_routing_line(out, r);
  if (r.outcome == Outcome::Skipped || r.outcome == Outcome::Xfailed) {
    if (!r.reason.empty()) out << "         reason: " << r.reason << "\n";
  }
  if (r.outcome == Outcome::Failed || r.outcome == Outcome::Error || r.outcome == Outcome::Xfailed) {
    out << "         " << r.bringup_status << " in phase " << r.phase;
    if (r.failure_kind != reports::FailureKind::None) out << " (" << reports::failure_kind_name(r.failure_kind) << ")";
    out << ": " << r.error_message;
    if (!r.failure_class.empty()) out << " [" << r.failure_class << "]";  // reports/failure_classes.h
    out << "\n";
  }
  if (r.outcome == Outcome::Xpassed) {
    out << "         KNOWN_FAILURE_XFAIL in test_config, but it passed: " << kPromoteHint << "\n";
  }
  if (!r.first_bad_op.empty()) out << "         first op past its per-op thresholds: " << r.first_bad_op << "\n";
  if (!final) out << "         rerun: attempt " << r.attempt + 1 << " follows (--reruns)\n";
  if (final && is_tolerated(r)) {
    out << "         " << painted("tolerated", kYellow, style)
        << ": the case is marked flaky (test_config `flaky: true`), so this failure does not fail the run\n";
  }
  if (!r.saved_tensors.empty()) out << "         tensors saved in " << r.saved_tensors << "\n";
  out.flush();
}

void print_summary(std::ostream& out, const std::vector<CaseResult>& results, double seconds,
                   const ConsoleStyle& style, const SummaryCounts& extra) {
  std::map<Outcome, int> counts;
  int unexpected = 0, tolerated = 0;
  for (const CaseResult& r : results) {
    ++counts[r.outcome];
    unexpected += is_unexpected(r);
    tolerated += is_tolerated(r);
  }
  if (extra.durations >= 0) print_durations(out, results, extra.durations);
  std::string parts;
  for (Outcome o : {Outcome::Passed, Outcome::Failed, Outcome::Error, Outcome::Skipped, Outcome::Xfailed,
                    Outcome::Xpassed}) {
    if (counts[o] == 0) continue;
    if (!parts.empty()) parts += ", ";
    parts += painted(std::to_string(counts[o]) + " " + std::string(reports::outcome_name(o)),
                     label_color(upper(reports::outcome_name(o))), style);
  }
  if (parts.empty()) parts = "no tests ran";
  if (extra.reruns > 0) parts += ", " + painted(std::to_string(extra.reruns) + " rerun", kYellow, style);
  if (tolerated > 0) parts += ", " + painted(std::to_string(tolerated) + " tolerated (flaky)", kYellow, style);
  char time[32];
  std::snprintf(time, sizeof time, "%.2fs", seconds);
  const char* bar = unexpected > 0 ? kRed : kGreen;
  out << painted("==", bar, style) << " " << parts << " in " << time << " " << painted("==", bar, style) << "\n";
  if (unexpected > 0) {
    out << unexpected << " unexpected result(s):\n";
    bool xpassed = false;
    for (const CaseResult& r : results) {
      if (is_unexpected(r)) {
        const std::string label = upper(reports::outcome_name(r.outcome));
        out << "  " << painted(label, label_color(label), style) << " " << r.test_id << "\n";
        xpassed = xpassed || r.outcome == Outcome::Xpassed;
      }
    }
    if (xpassed) out << "an XPASSED case's KNOWN_FAILURE_XFAIL is stale: " << kPromoteHint << "\n";
  }
}

}  // namespace meshtest::runner
