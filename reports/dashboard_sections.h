// The dashboard's sections, each rendering one <section> of HTML from the runs.
#pragma once

#include <string>
#include <vector>

#include "reports/dashboard.h"

namespace meshtest::reports::dashboard {

// Shared per-page facts: the runs, and the final result of each case per run.
struct Page {
  const std::vector<RunResults>& runs;
  const DashboardOptions& options;
  std::vector<std::map<std::string, const CaseResult*>> finals;  // per run, same order
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
std::string guidance(const Page& page);
std::string all_cases(const Page& page);

}  // namespace meshtest::reports::dashboard
