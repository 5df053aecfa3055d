// Dashboard section: the latest run's failures triaged (reports/triage.h)
// against the previous run of each backend on the page's arch: one row per
// class and summary with its label, and the cases fixed since.
#include "reports/dashboard_sections.h"
#include "reports/triage.h"

namespace meshtest::reports::dashboard {

namespace {

constexpr size_t kCasesShown = 5;

std::string label_cell(TriageLabel label) {
  const char* css = label == TriageLabel::New ? "bad" : label == TriageLabel::Fixed ? "good" : "";
  return cell(std::string(triage_label_name(label)), css);
}

std::string since_text(const SinceRun& since) {
  return since.empty() ? "" : since.run_id + (since.git_sha.empty() ? "" : " (" + since.git_sha + ")");
}

// The first cases of a group, each with its label (and since when, or its history), then how many more.
std::string cases_html(const TriageGroup& g) {
  std::string html;
  for (size_t i = 0; i < g.cases.size() && i < kCasesShown; ++i) {
    const TriageCase& c = g.cases[i];
    std::string note = std::string(triage_label_name(c.label));
    if (c.label == TriageLabel::Flaky) note += " " + c.history;
    if (c.label == TriageLabel::Persisting) note += " since " + c.since.run_id;
    html += id_html(c.test_id) + " <span class=\"none\">" + esc(c.backend + ", " + note) + "</span><br>";
  }
  if (g.cases.size() > kCasesShown) html += "… and " + std::to_string(g.cases.size() - kCasesShown) + " more";
  return "<td class=\"id\">" + html + "</td>";
}

std::string group_rows(const std::vector<TriageGroup>& groups) {
  std::string rows;
  for (const TriageGroup& g : groups) {
    rows += "<tr>" + label_cell(g.label) + "<td class=\"num\">" + std::to_string(g.cases.size()) + "</td>" +
            "<td class=\"num\">" + std::to_string(g.count(TriageLabel::New)) + "</td><td class=\"num\">" +
            std::to_string(g.count(TriageLabel::Persisting)) + "</td><td class=\"num\">" +
            std::to_string(g.count(TriageLabel::Flaky)) + "</td>" + cell(g.failure.name) +
            cell(g.failure.component) + cell(g.failure.summary, "msg") + cell(since_text(g.since)) + cases_html(g) +
            "</tr>";
  }
  return rows;
}

std::string compared_html(const Triage& t) {
  std::string html;
  for (const TriageScope& s : t.scopes) {
    std::string runs;
    for (const RunInfo& r : s.compared) runs += (runs.empty() ? "" : ", ") + since_text({r.run_id, r.git_sha, ""});
    html += (html.empty() ? "" : "; ") + s.backend + ": " + (runs.empty() ? "no earlier run" : runs);
  }
  return "<p class=\"shown\">Compared with the previous run of each backend: " + esc(html) + ". " +
         std::to_string(t.xfailed) + " expected failure(s) not triaged; <code>meshtest triage</code> gives the same as "
         "text, JSON or Markdown.</p>";
}

}  // namespace

std::string triage(const Page& page) {
  const std::span<const RunResults> runs(page.runs);
  const TriageClassifier classify = page.options.classify ? page.options.classify : failure_classifier(nullptr);
  const Triage t = triage_run(runs.back(), runs.first(runs.size() - 1), {}, classify);
  std::string body = compared_html(t);
  const std::vector<std::string> headings = {"label", "cases", "new", "persisting", "flaky", "class",
                                             "component", "summary", "since", "cases (first 5)"};
  body += t.groups.empty() ? none("No failures.") : table(headings, group_rows(t.groups));
  if (!t.fixed.empty()) body += "<h3>Fixed since the previous run</h3>" + table(headings, group_rows(t.fixed));
  return section("triage", "Triage of the latest run: failures by class, new, persisting or flaky", body);
}

}  // namespace meshtest::reports::dashboard
