// Dashboard sections: header, overview by arch x parallelism x run mode,
// trends, changes against the previous run, per-model history.
#include "reports/dashboard_sections.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "reports/junit_xml.h"
#include "reports/svg_charts.h"

namespace meshtest::reports::dashboard {

namespace {

const std::vector<Outcome> kOutcomes = {Outcome::Passed,  Outcome::Failed,  Outcome::Error,
                                        Outcome::Xfailed, Outcome::Xpassed, Outcome::Skipped};

std::string count_text(size_t n) { return std::to_string(n); }

// Of the cases a run was asked to run: a missing case (selected, no result)
// counts as not passed, so a lost shard never reads as green; an xfail is
// expected and counts neither way.
double pass_rate(const std::map<std::string, const CaseResult*>& finals, size_t missing) {
  size_t ran = missing, passed = 0;
  for (const auto& [id, r] : finals) {
    if (r->outcome == Outcome::Skipped || r->outcome == Outcome::Xfailed) continue;
    ++ran;
    passed += is_pass(r->outcome);
  }
  return ran ? 100.0 * static_cast<double>(passed) / static_cast<double>(ran) : NAN;
}

double min_pcc(const std::map<std::string, const CaseResult*>& finals) {
  double out = NAN;
  for (const auto& [id, r] : finals) {
    if (std::isfinite(r->pcc) && r->outcome != Outcome::Skipped) out = std::isnan(out) ? r->pcc : std::min(out, r->pcc);
  }
  return out;
}

std::string change_rows(const std::vector<CaseChange>& changes, bool show_pcc) {
  std::string rows;
  for (const CaseChange& c : changes) {
    const CaseResult& now = *c.after;
    rows += "<tr>" + cell(c.test_id, "id") +
            cell(c.before ? std::string(outcome_name(c.before->outcome)) : "(new case)") +
            cell(std::string(outcome_name(now.outcome))) + cell(now.bringup_status);
    if (show_pcc) rows += number_cell(c.before ? c.before->pcc : NAN, "%.6f") + number_cell(now.pcc, "%.6f");
    rows += cell(case_message(now), "msg") + "</tr>";
  }
  return rows;
}

// A list of changes; a long one (a nightly's hundreds of PCC drops) folded, its size in the summary.
std::string change_table(const std::vector<std::string>& headings, const std::vector<CaseChange>& changes,
                         bool show_pcc) {
  if (changes.empty()) return none("none");
  const std::string t = table(headings, change_rows(changes, show_pcc));
  if (changes.size() <= 20) return t;
  return "<details><summary>" + std::to_string(changes.size()) + " case(s)</summary>" + t + "</details>";
}

}  // namespace

std::string case_message(const CaseResult& r) {
  if (r.first_bad_op.empty()) return r.error_message;
  return r.error_message + (r.error_message.empty() ? "" : "\n") + "first op past its per-op thresholds: " +
         r.first_bad_op;
}

std::string outcome_color(Outcome o) {
  switch (o) {
    case Outcome::Passed: return "#2e9d4f";
    case Outcome::Failed: return "#d9433b";
    case Outcome::Error: return "#8e2b8e";
    case Outcome::Xfailed: return "#e3a21a";
    case Outcome::Xpassed: return "#1f77b4";
    case Outcome::Skipped: return "#9aa0a6";
  }
  return "#9aa0a6";
}

std::string esc(const std::string& text) { return xml_escape(text); }

std::string cell(const std::string& text, const std::string& css_class) {
  return (css_class.empty() ? "<td>" : "<td class=\"" + css_class + "\">") +
         (css_class == "id" ? id_html(text) : esc(text)) + "</td>";
}

std::string id_html(const std::string& id) {
  std::string out;
  size_t from = 0;
  for (size_t at = id.find_first_of("/-"); at != std::string::npos; at = id.find_first_of("/-", at + 1)) {
    out += esc(id.substr(from, at + 1 - from)) + "<wbr>";
    from = at + 1;
  }
  return out + esc(id.substr(from));
}

void Tally::add(Outcome o) {
  switch (o) {
    case Outcome::Passed: ++passed; break;
    case Outcome::Xfailed: ++xfailed; break;
    case Outcome::Skipped: ++skipped; break;
    case Outcome::Failed:
    case Outcome::Error:
    case Outcome::Xpassed: ++failed; break;
  }
}

char tally_glyph(const Tally& t) {
  if (t.failed > 0) return 'F';
  if (t.passed > 0) return 'P';
  if (t.xfailed > 0) return 'X';
  return t.skipped > 0 ? 'S' : '.';
}

std::string glyph_strip(const std::string& glyphs) {
  std::string out = "<span class=\"hist\">";
  for (size_t i = 0; i < glyphs.size();) {
    size_t j = i;
    while (j < glyphs.size() && glyphs[j] == glyphs[i]) ++j;
    const char g = glyphs[i];
    out += std::string("<i class=\"g") + (g == '.' ? 'N' : g) + "\">" + glyphs.substr(i, j - i) + "</i>";
    i = j;
  }
  return out + "</span>";
}

std::string history_grid(const std::string& id, const std::map<std::string, std::vector<Tally>>& rows,
                         const std::vector<RunResults>& runs) {
  const double cw = 16, label_w = 220, rh = 18;
  const double w = label_w + cw * static_cast<double>(runs.size()) + 60;
  const double h = rh * static_cast<double>(rows.size()) + 4;
  std::string svg = "<svg id=\"" + id + "\" class=\"chart grid\" style=\"max-width:" + format_number("%.0f", w) +
                    "px\" viewBox=\"0 0 " + format_number("%.0f", w) + " " + format_number("%.0f", h) +
                    "\" role=\"img\">";
  size_t row_index = 0;
  for (const auto& [label, row] : rows) {
    const double y = 2 + rh * static_cast<double>(row_index++);
    // One tooltip per row (a title per cell weighs too much at 200 models x 20 runs).
    std::string glyphs;
    for (const Tally& t : row) glyphs += tally_glyph(t);
    svg += "<g><title>" + esc(label + " (oldest → newest): " + glyphs) + "</title><text class=\"axis\" x=\"" +
           format_number("%.0f", label_w - 6) + "\" y=\"" + format_number("%.1f", y + 12) +
           "\" text-anchor=\"end\">" + esc(label) + "</text>";
    for (size_t i = 0; i < row.size(); ++i) {
      // cP nothing failed; cF all that ran failed; cO some failed; cX only expected failures; cN none
      const char glyph = tally_glyph(row[i]);
      const char css = glyph == 'F' ? (row[i].failed == row[i].ran() ? 'F' : 'O') : glyph == '.' || glyph == 'S' ? 'N' : glyph;
      svg += "<rect x=\"" + format_number("%.0f", label_w + cw * static_cast<double>(i)) + "\" y=\"" +
             format_number("%.0f", y + 1) + "\" class=\"c" + std::string(1, css) + "\"/>";
    }
    svg += "</g>";
  }
  return svg + "</svg>";
}

std::string number_cell(double value, const std::string& format) {
  return "<td class=\"num\">" + esc(format_number(format, value)) + "</td>";
}

std::string section(const std::string& id, const std::string& title, const std::string& body) {
  return "<section id=\"" + id + "\"><h2>" + esc(title) + "</h2>" + body + "</section>";
}

std::string table(const std::vector<std::string>& headings, const std::string& rows) {
  std::string html = "<table><thead><tr>";
  for (const auto& h : headings) html += "<th>" + esc(h) + "</th>";
  return html + "</tr></thead><tbody>" + rows + "</tbody></table>";
}

std::string none(const std::string& text) { return "<p class=\"none\">" + esc(text) + "</p>"; }

std::string header(const Page& page) {
  const RunInfo& run = page.latest().run;
  std::string html = "<header><h1>" + esc(page.options.title) + "</h1><div class=\"meta\">run <b id=\"run-id\">" +
                     esc(run.run_id) + "</b> · " + esc(run.arch) + " · git " + esc(run.git_sha) + " · " +
                     esc(run.host) + " · started " + esc(run.started_at) + " · " + count_text(page.runs.size()) +
                     " run(s) in view</div></header>";
  return html;
}

std::string overview(const Page& page) {
  std::map<Outcome, size_t> totals;
  std::set<std::string> bringups;
  using Key = std::tuple<std::string, std::string, std::string>;  // arch, parallelism, run mode
  std::map<Key, std::map<std::string, size_t>> groups;
  for (const auto& [id, r] : page.latest_finals()) {
    ++totals[r->outcome];
    bringups.insert(r->bringup_status);
    auto& g = groups[{r->arch, r->parallelism, r->run_mode}];
    ++g["total"];
    ++g[std::string(outcome_name(r->outcome))];
    ++g["b:" + r->bringup_status];
  }
  std::string tiles = "<div class=\"tiles\">";
  std::vector<BarSegment> segments;
  for (Outcome o : kOutcomes) {
    tiles += "<div class=\"tile\" style=\"background:" + outcome_color(o) + "\"><b data-outcome=\"" +
             std::string(outcome_name(o)) + "\">" + count_text(totals[o]) + "</b>" + std::string(outcome_name(o)) +
             "</div>";
    segments.push_back({std::string(outcome_name(o)), static_cast<double>(totals[o]), outcome_color(o)});
  }
  // Selected but without a result: a shard that was killed or never started.
  const std::vector<std::string>& missing = page.latest().missing;
  tiles += "<div class=\"tile\" style=\"background:#7f1d1d\"><b data-outcome=\"missing\">" +
           count_text(missing.size()) + "</b>missing</div>";
  segments.push_back({"missing", static_cast<double>(missing.size()), "#7f1d1d"});
  tiles += "</div>";
  if (!missing.empty()) {
    std::string items;
    for (const std::string& id : missing) items += "<li class=\"id\">" + esc(id) + "</li>";
    tiles += "<details id=\"missing-cases\"><summary>" + count_text(missing.size()) +
             " selected case(s) without a result (MISSING)</summary><ul>" + items + "</ul></details>";
  }
  std::vector<std::string> headings = {"arch", "parallelism", "run mode", "cases"};
  for (Outcome o : kOutcomes) headings.emplace_back(outcome_name(o));
  for (const auto& b : bringups) headings.push_back(b);
  std::string rows;
  for (const auto& [key, counts] : groups) {
    rows += "<tr>" + cell(std::get<0>(key)) + cell(std::get<1>(key)) + cell(std::get<2>(key));
    auto count = [&](const std::string& k) {
      auto it = counts.find(k);
      return "<td class=\"num\">" + count_text(it == counts.end() ? 0 : it->second) + "</td>";
    };
    rows += count("total");
    for (Outcome o : kOutcomes) rows += count(std::string(outcome_name(o)));
    for (const auto& b : bringups) rows += count("b:" + b);
    rows += "</tr>";
  }
  return section("overview", "Latest run: " + count_text(page.latest_finals().size()) + " case(s)",
                 tiles + svg_stacked_bar("outcome-bar", segments) + "<h3>By arch × parallelism × run mode</h3>" +
                     table(headings, rows));
}

std::string trends(const Page& page) {
  std::vector<ChartPoint> rate, pcc;
  for (size_t i = 0; i < page.runs.size(); ++i) {
    const std::string label = page.runs[i].run.run_id;
    rate.push_back({label, pass_rate(page.finals[i], page.runs[i].missing.size())});
    pcc.push_back({label, min_pcc(page.finals[i])});
  }
  double low = 1;
  for (const auto& p : pcc) {
    if (std::isfinite(p.value)) low = std::min(low, p.value);
  }
  low = std::floor(std::max(low, -1.0) * 100) / 100;
  return section("trends", "Last " + count_text(page.runs.size()) + " run(s)",
                 "<div class=\"charts\"><div><h3>Pass rate (% of the selected cases that ran; a missing case counts "
                 "as not passed)</h3>" +
                     svg_line_chart("pass-rate-chart", rate, 0, 100, "%.0f%%") +
                     "</div><div><h3>Minimum PCC over cases</h3>" +
                     svg_line_chart("min-pcc-chart", pcc, std::min(low, 0.99), 1.0, "%.3f") + "</div></div>");
}

std::string changes(const Page& page) {
  if (page.runs.size() < 2) return section("changes", "Changes", none("Only one run: nothing to compare yet."));
  const RunDiff d = diff_runs(page.runs[page.runs.size() - 2].results, page.latest().results, page.options.diff);
  const std::vector<std::string> headings = {"test id", "before", "now", "bring-up status", "message"};
  const std::vector<std::string> pcc_headings = {"test id", "before", "now", "bring-up status", "PCC before",
                                                 "PCC now", "message"};
  std::string body = "<p>Against run <span class=\"id\">" + esc(page.runs[page.runs.size() - 2].run.run_id) +
                     "</span>: <span class=\"" + (d.new_failures.empty() ? "good" : "bad") + "\" id=\"new-failures-count\">" +
                     count_text(d.new_failures.size()) + " new failure(s)</span>, <span class=\"good\">" +
                     count_text(d.fixed.size()) + " new pass(es)</span>, " + count_text(d.pcc_drops.size()) +
                     " PCC drop(s), " + count_text(d.slower.size()) + " slower case(s).</p>";
  body += "<h3>New failures</h3>" +
          change_table(headings, d.new_failures, false);
  body += "<h3>New passes</h3>" + change_table(headings, d.fixed, false);
  body += "<h3>PCC drops (more than " + format_number("%g", page.options.diff.pcc_margin) + ")</h3>" +
          change_table(pcc_headings, d.pcc_drops, true);
  return section("changes", "What changed since the previous run", body);
}

std::string history_section(const std::string& id, const std::string& what, const std::string& chart_id,
                            const std::map<std::string, std::vector<Tally>>& rows, const std::vector<RunResults>& runs) {
  return section(id,
                 "Per-" + what +
                     " history (oldest → newest; green nothing failed, orange some failed, red all failed, amber only "
                     "expected failures (xfail))",
                 rows.empty() ? none("no cases") : history_grid(chart_id, rows, runs));
}

std::string model_history(const Page& page) {
  const auto rows = tally_rows(page.finals, [](const std::string&, const CaseResult& r) {
    return r.model.empty() ? r.loader_dir : r.model;
  });
  return history_section("model-history", "model", "model-history", rows, page.runs);
}

}  // namespace meshtest::reports::dashboard
