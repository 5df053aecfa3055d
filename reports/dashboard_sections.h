// The dashboard's sections, each rendering one <section> of HTML from the runs.
#pragma once

#include <string>
#include <vector>

#include "reports/dashboard.h"

namespace meshtest::reports::dashboard {

// (arch, test id): a case's key across arches.
using ArchCase = std::pair<std::string, std::string>;

// How a set of final results went: an xfail is expected, so not a failure.
struct Tally {
  size_t passed = 0, xfailed = 0, failed = 0, skipped = 0;  // failed: failed, error, xpassed
  void add(Outcome outcome);
  size_t ran() const { return passed + xfailed + failed; }
};
// One character per run for a history strip: P passed, F a failure, X only
// expected failures, S skipped, '.' no result.
char tally_glyph(const Tally& t);
// A history strip as HTML: runs of the same glyph in one coloured <i>.
std::string glyph_strip(const std::string& glyphs);

// Shared per-page facts: the runs (scoped to one arch), the final result of
// each case per run; the same runs on every arch for the explorer.
struct Page {
  const std::vector<RunResults>& runs;
  const DashboardOptions& options;
  std::vector<std::map<std::string, const CaseResult*>> finals;  // per run, same order
  const std::vector<RunResults>& every_arch;                     // the runs unscoped (same runs, every arch)
  std::vector<std::map<ArchCase, const CaseResult*>> every_arch_finals;  // per run of every_arch
  const RunResults& latest() const { return runs.back(); }
  const std::map<std::string, const CaseResult*>& latest_finals() const { return finals.back(); }
};

// Small HTML helpers shared by the sections (everything passed as text is escaped).
std::string outcome_color(Outcome outcome);
// A case's message, and the first op past its per-op thresholds when op-level
// golden ran (first_bad_op) on a line of its own.
std::string case_message(const CaseResult& r);
std::string esc(const std::string& text);
std::string cell(const std::string& text, const std::string& css_class = "");
std::string number_cell(double value, const std::string& format);
std::string section(const std::string& id, const std::string& title, const std::string& body);
std::string table(const std::vector<std::string>& headings, const std::string& rows);
std::string none(const std::string& text);  // an empty-state line

std::string header(const Page& page);
std::string overview(const Page& page);
std::string trends(const Page& page);
std::string changes(const Page& page);
std::string model_history(const Page& page);
std::string flaky(const Page& page);
std::string slowest(const Page& page);
std::string failure_groups(const Page& page);
// The latest run's failures triaged against the previous run (reports/dashboard_triage.cpp).
std::string triage(const Page& page);
std::string guidance(const Page& page);
std::string xfails(const Page& page);
// Filterable views (reports/dashboard_explorer.cpp): the filter bar, every
// case of the latest run on every arch, per-variant and per-arch history,
// the placeholders (never filtered out).
std::string filter_bar(const Page& page);
std::string case_explorer(const Page& page);
std::string variant_history(const Page& page);
std::string arch_history(const Page& page);
std::string placeholders(const Page& page);
// A case row's data-* attributes: what the filter bar filters on.
std::string case_filter_attributes(const CaseResult& r);
// "shown N of M" above a filterable table (the filter script updates N).
std::string shown_count(const std::string& table_id, size_t rows);
// The memory by phase of each case of the latest run that ran with
// --log-memory, every arch, filtered like the explorer (reports/dashboard_memory.cpp).
std::string memory_timeline(const Page& page);
// A test id with line-break opportunities after '/' and '-' (escaped).
std::string id_html(const std::string& id);
// The grid of per-run cells (one row per label) that model and arch history draw.
std::string history_grid(const std::string& id, const std::map<std::string, std::vector<Tally>>& rows,
                         const std::vector<RunResults>& runs);
// A section holding one history grid ("Per-<what> history ...", with the colour legend).
std::string history_section(const std::string& id, const std::string& what, const std::string& chart_id,
                            const std::map<std::string, std::vector<Tally>>& rows, const std::vector<RunResults>& runs);

// Tallies per label and run from per-run final results (`finals[i]`: run i's),
// the label of a result given by `label(key, result)`.
template <class Finals, class Label>
std::map<std::string, std::vector<Tally>> tally_rows(const std::vector<Finals>& finals, Label label) {
  std::map<std::string, std::vector<Tally>> rows;
  for (size_t i = 0; i < finals.size(); ++i) {
    for (const auto& [key, r] : finals[i]) {
      auto& row = rows[label(key, *r)];
      row.resize(finals.size());
      row[i].add(r->outcome);
    }
  }
  return rows;
}

}  // namespace meshtest::reports::dashboard
