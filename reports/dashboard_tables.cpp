// Dashboard sections that are mostly tables: flaky cases, slowest cases,
// failures grouped by reason, guidance, every case of the latest run.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "reports/dashboard_sections.h"
#include "reports/svg_charts.h"

namespace meshtest::reports::dashboard {

namespace {

// A failure's reason without the details that differ between cases: the
// first line of the message with numbers and quoted names replaced.
std::string reason_key(const CaseResult& r) {
  std::string line = r.error_message.substr(0, r.error_message.find('\n'));
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (out.empty() || out.back() != '#') out += '#';
      while (i + 1 < line.size() && (std::isdigit(static_cast<unsigned char>(line[i + 1])) || line[i + 1] == '.')) ++i;
    } else if (c == '\'') {
      const size_t close = line.find('\'', i + 1);
      if (close == std::string::npos) {
        out += c;
        continue;
      }
      out += "'…'";
      i = close;
    } else {
      out += c;
    }
  }
  return out.size() > 200 ? out.substr(0, 200) + "…" : out;
}

}  // namespace

std::string flaky(const Page& page) {
  const auto cases = find_flaky(page.runs);
  std::string rows;
  for (const FlakyCase& c : cases) {
    rows += "<tr>" + cell(c.test_id, "id") + "<td class=\"id\">" + esc(c.outcomes) + "</td><td class=\"num\">" +
            std::to_string(c.flips) + "</td><td class=\"num\">" + std::to_string(c.retried_passes) +
            "</td><td class=\"num\">" + std::to_string(c.passes) + "/" + std::to_string(c.runs) + "</td></tr>";
  }
  return section("flaky", "Flaky cases (" + std::to_string(cases.size()) + ")",
                 cases.empty() ? none("No case changed outcome back and forth in these runs.")
                               : table({"test id", "outcomes (P pass, F fail, X xfail, S skip)", "flips",
                                        "passed on retry", "passes"},
                                       rows));
}

std::string slowest(const Page& page) {
  std::vector<const CaseResult*> cases;
  for (const auto& [id, r] : page.latest_finals()) cases.push_back(r);
  const size_t n = std::min(cases.size(), static_cast<size_t>(std::max(0, page.options.slowest)));
  std::partial_sort(cases.begin(), cases.begin() + static_cast<long>(n), cases.end(),
                    [](const CaseResult* a, const CaseResult* b) { return a->wall_seconds > b->wall_seconds; });
  std::vector<BarSegment> bars;
  std::string rows;
  for (size_t i = 0; i < n; ++i) {
    const CaseResult& r = *cases[i];
    bars.push_back({r.test_id, r.wall_seconds, outcome_color(r.outcome)});
    rows += "<tr>" + cell(r.test_id, "id") + number_cell(r.wall_seconds, "%.2f") + number_cell(r.seconds.load, "%.2f") +
            number_cell(r.seconds.golden, "%.2f") + number_cell(r.seconds.compile, "%.2f") +
            number_cell(r.seconds.execute, "%.2f") + number_cell(r.seconds.compare, "%.2f") +
            number_cell(static_cast<double>(r.peak_host_rss_bytes) / 1048576.0, "%.0f") + "</tr>";
  }
  return section("slowest", "Slowest cases of the latest run",
                 n == 0 ? none("no cases")
                        : svg_bar_chart("slowest-chart", bars, " s") +
                              "<details><summary>phase times</summary>" +
                              table({"test id", "wall s", "load", "golden", "compile", "execute", "compare",
                                     "peak RSS MiB"},
                                    rows) +
                              "</details>");
}

std::string failure_groups(const Page& page) {
  struct Group {
    size_t count = 0;
    std::vector<std::string> ids;
    std::string example;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  for (const auto& [id, r] : page.latest_finals()) {
    if (!is_failure(r->outcome) && r->outcome != Outcome::Xfailed) continue;
    Group& g = groups[{r->bringup_status, reason_key(*r)}];
    if (g.count++ < 5) g.ids.push_back(id);
    if (g.example.empty()) g.example = r->error_message;
  }
  std::vector<std::pair<std::pair<std::string, std::string>, Group>> sorted(groups.begin(), groups.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  std::string rows;
  for (const auto& [key, g] : sorted) {
    std::string ids;
    for (const auto& id : g.ids) ids += esc(id) + "<br>";
    if (g.count > g.ids.size()) ids += "… and " + std::to_string(g.count - g.ids.size()) + " more";
    rows += "<tr><td class=\"num\">" + std::to_string(g.count) + "</td>" + cell(key.first) + cell(key.second, "msg") +
            "<td class=\"id\">" + ids + "</td></tr>";
  }
  return section("failures", "Failures grouped by reason (latest run)",
                 groups.empty() ? none("No failures.")
                                : table({"cases", "bring-up status", "reason", "cases (first 5)"}, rows));
}

std::string guidance(const Page& page) {
  std::map<std::string, std::vector<const CaseResult*>> by_tag;
  for (const auto& [id, r] : page.latest_finals()) {
    for (const auto& tag : r->guidance) by_tag[tag].push_back(r);
  }
  std::string body;
  for (const auto& [tag, cases] : by_tag) {
    std::string rows;
    for (const CaseResult* r : cases) {
      rows += "<tr>" + cell(r->test_id, "id") + cell(r->status) + number_cell(r->pcc, "%.6f") +
              number_cell(r->required_pcc, "%.3f") + "</tr>";
    }
    body += "<details><summary><b>" + esc(tag) + "</b> (" + std::to_string(cases.size()) + ")</summary>" +
            table({"test id", "config status", "PCC", "required PCC"}, rows) + "</details>";
  }
  return section("guidance", "Guidance: test_config updates these results suggest (meshtest promote applies them)",
                 body.empty() ? none("Nothing to update.") : body);
}

std::string all_cases(const Page& page) {
  std::string rows;
  for (const auto& [id, r] : page.latest_finals()) {
    rows += "<tr data-outcome=\"" + std::string(outcome_name(r->outcome)) + "\">" + cell(id, "id") +
            "<td><span class=\"cell\" style=\"background:" + outcome_color(r->outcome) + "\"></span> " +
            esc(std::string(outcome_name(r->outcome))) + "</td>" + cell(r->bringup_status) + cell(r->status) +
            number_cell(r->pcc, "%.6f") + number_cell(r->wall_seconds, "%.2f") + cell(case_message(*r), "msg") + "</tr>";
  }
  return section("cases", "Every case of the latest run",
                 "<details><summary>" + std::to_string(page.latest_finals().size()) + " case(s)</summary>" +
                     table({"test id", "outcome", "bring-up status", "config status", "PCC", "wall s", "message"},
                           rows) +
                     "</details>");
}

}  // namespace meshtest::reports::dashboard
