// Triage as console text, Markdown and JSON.
#include "reports/triage_text.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace meshtest::reports {

namespace {

using Json = nlohmann::ordered_json;

std::string plural(size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

struct LabelCounts {
  size_t fresh = 0, persisting = 0, flaky = 0;
};

LabelCounts counts_of(const Triage& t) {
  LabelCounts n;
  for (const TriageGroup& g : t.groups) {
    n.fresh += g.count(TriageLabel::New);
    n.persisting += g.count(TriageLabel::Persisting);
    n.flaky += g.count(TriageLabel::Flaky);
  }
  return n;
}

size_t fixed_cases(const Triage& t) {
  size_t n = 0;
  for (const TriageGroup& g : t.fixed) n += g.cases.size();
  return n;
}

// "40 failing cases in 6 groups: 14 new, 22 persisting, 4 flaky; 3 fixed; 1 expected failure not triaged"
std::string totals(const Triage& t) {
  const LabelCounts n = counts_of(t);
  return plural(t.failing_cases(), "failing case", "failing cases") + " in " +
         plural(t.groups.size(), "group", "groups") + ": " + std::to_string(n.fresh) + " new, " +
         std::to_string(n.persisting) + " persisting, " + std::to_string(n.flaky) + " flaky; " +
         std::to_string(fixed_cases(t)) + " fixed; " +
         plural(t.xfailed, "expected failure (xfailed)", "expected failures (xfailed)") + " not triaged";
}

std::string run_text(const std::string& run_id, const std::string& git_sha) {
  return run_id + (git_sha.empty() ? "" : " (" + git_sha + ")");
}

std::string compared_text(const TriageScope& s) {
  std::string text;
  for (const RunInfo& r : s.compared) text += (text.empty() ? "" : ", ") + run_text(r.run_id, r.git_sha);
  return text.empty() ? "no earlier run (every failure is new)" : text;
}

// What follows a case's label: since when, or its history.
std::string case_note(const TriageCase& c) {
  if (c.label == TriageLabel::Flaky) return "history " + c.history;
  if (!c.since.empty()) return "since " + run_text(c.since.run_id, c.since.git_sha);
  return "";
}

// ---- Markdown ----

// Inline code that survives backticks in the text.
std::string md_code(const std::string& text) {
  const std::string fence = text.find('`') == std::string::npos ? "`" : "``";
  return fence + (fence.size() > 1 ? " " + text + " " : text) + fence;
}

std::string md_cell(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string md_case(const TriageCase& c) {
  std::string note_md;
  if (c.label == TriageLabel::Flaky) note_md = " (history " + md_code(c.history) + ", oldest first)";
  if (c.label == TriageLabel::Persisting) {
    note_md = " since " + md_code(c.since.run_id) + (c.since.git_sha.empty() ? "" : " (" + md_code(c.since.git_sha) + ")");
  }
  return "- " + md_code(c.test_id) + " (" + c.arch + ", " + c.backend + "): **" +
         std::string(triage_label_name(c.label)) + "**" + note_md + "\n";
}

std::string md_group_heading(size_t index, const TriageGroup& g) {
  return "### " + std::to_string(index) + ". " + std::string(triage_label_name(g.label)) + ": " + g.failure.name +
         (g.failure.component.empty() ? "" : " (" + g.failure.component + ")") + ", " +
         plural(g.cases.size(), "case", "cases") + "\n\n" +
         (g.failure.summary.empty() ? "" : "> " + g.failure.summary + "\n\n");
}

std::string md_since(const TriageGroup& g) {
  return g.since.empty() ? "" : md_code(g.since.run_id) + (g.since.git_sha.empty() ? "" : " " + md_code(g.since.git_sha));
}

// ---- JSON ----

Json json_since(const SinceRun& s) {
  if (s.empty()) return nullptr;
  return Json{{"run_id", s.run_id}, {"git_sha", s.git_sha}, {"started_at", s.started_at}};
}

Json json_group(const TriageGroup& g) {
  Json cases = Json::array();
  for (const TriageCase& c : g.cases) {
    cases.push_back(Json{{"test_id", c.test_id},
                         {"arch", c.arch},
                         {"backend", c.backend},
                         {"outcome", std::string(outcome_name(c.outcome))},
                         {"label", std::string(triage_label_name(c.label))},
                         {"since", json_since(c.since)},
                         {"history", c.history},
                         {"message", c.message}});
  }
  return Json{{"label", std::string(triage_label_name(g.label))},
              {"class", g.failure.name},
              {"component", g.failure.component},
              {"summary", g.failure.summary},
              {"since", json_since(g.since)},
              {"counts",
               {{"new", g.count(TriageLabel::New)},
                {"persisting", g.count(TriageLabel::Persisting)},
                {"flaky", g.count(TriageLabel::Flaky)},
                {"fixed", g.count(TriageLabel::Fixed)}}},
              {"cases", cases}};
}

}  // namespace

std::string triage_console(const Triage& t) {
  std::string out = "triage of run " + run_text(t.run.run_id, t.run.git_sha) + ", started " + t.run.started_at + "\n";
  for (const TriageScope& s : t.scopes) out += "  " + s.arch + "/" + s.backend + " compared with " + compared_text(s) + "\n";
  out += totals(t) + "\n";
  char line[256];
  auto group_lines = [&](const std::vector<TriageGroup>& groups) {
    for (const TriageGroup& g : groups) {
      char counts[64] = "";  // a fixed group's cases are all fixed
      if (g.label != TriageLabel::Fixed) {
        std::snprintf(counts, sizeof counts, "%3zu new %3zu persisting %3zu flaky", g.count(TriageLabel::New),
                      g.count(TriageLabel::Persisting), g.count(TriageLabel::Flaky));
      }
      std::snprintf(line, sizeof line, "\n%-10s %-30s  %-26s %-14s %4zu case(s)  ",
                    std::string(triage_label_name(g.label)).c_str(), counts, g.failure.name.c_str(),
                    g.failure.component.empty() ? "-" : g.failure.component.c_str(), g.cases.size());
      out += line + g.failure.summary + "\n";
      for (const TriageCase& c : g.cases) {
        std::snprintf(line, sizeof line, "    %-10s %-8s %-10s ", std::string(triage_label_name(c.label)).c_str(),
                      c.arch.c_str(), c.backend.c_str());
        const std::string note = case_note(c);
        out += line + c.test_id + (note.empty() ? "" : "  " + note) + "\n";
      }
    }
  };
  group_lines(t.groups);
  if (!t.fixed.empty()) out += "\nFIXED (" + std::to_string(fixed_cases(t)) + "): failed in the comparison runs, pass now";
  group_lines(t.fixed);
  return out;
}

std::string triage_markdown(const Triage& t) {
  std::string out = "## Triage of run " + md_code(t.run.run_id) +
                    (t.run.git_sha.empty() ? "" : " (" + md_code(t.run.git_sha) + ")") + "\n\n";
  out += "Compared with (per arch and backend):\n\n";
  for (const TriageScope& s : t.scopes) {
    std::string runs;
    for (const RunInfo& r : s.compared) {
      runs += (runs.empty() ? "" : ", ") + md_code(r.run_id) + (r.git_sha.empty() ? "" : " (" + md_code(r.git_sha) + ")");
    }
    out += "- " + s.arch + ", " + s.backend + ": " + (runs.empty() ? "no earlier run (every failure is new)" : runs) + "\n";
  }
  out += "\n**" + totals(t) + ".**\n\n";
  if (!t.groups.empty()) {
    out += "| # | label | new | persisting | flaky | class | component | summary | cases | since |\n";
    out += "|---|---|---|---|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < t.groups.size(); ++i) {
      const TriageGroup& g = t.groups[i];
      out += "| " + std::to_string(i + 1) + " | " + std::string(triage_label_name(g.label)) + " | " +
             std::to_string(g.count(TriageLabel::New)) + " | " + std::to_string(g.count(TriageLabel::Persisting)) +
             " | " + std::to_string(g.count(TriageLabel::Flaky)) + " | " + md_cell(g.failure.name) + " | " +
             md_cell(g.failure.component) + " | " + md_cell(g.failure.summary) + " | " +
             std::to_string(g.cases.size()) + " | " + md_since(g) + " |\n";
    }
    out += "\n";
  }
  for (size_t i = 0; i < t.groups.size(); ++i) {
    out += md_group_heading(i + 1, t.groups[i]);
    for (const TriageCase& c : t.groups[i].cases) out += md_case(c);
    out += "\n";
  }
  if (!t.fixed.empty()) {
    out += "### Fixed: " + plural(fixed_cases(t), "case", "cases") + " that failed in the comparison runs pass now\n\n";
    for (const TriageGroup& g : t.fixed) {
      out += "- " + g.failure.name + (g.failure.component.empty() ? "" : " (" + g.failure.component + ")") +
             (g.failure.summary.empty() ? "" : ": " + md_code(g.failure.summary)) + "\n";
      for (const TriageCase& c : g.cases) out += "  " + md_case(c);
    }
  }
  return out;
}

std::string triage_json(const Triage& t) {
  const LabelCounts n = counts_of(t);
  Json compared = Json::array();
  for (const TriageScope& s : t.scopes) {
    Json runs = Json::array();
    for (const RunInfo& r : s.compared) {
      runs.push_back(Json{{"run_id", r.run_id}, {"git_sha", r.git_sha}, {"started_at", r.started_at}});
    }
    compared.push_back(Json{{"arch", s.arch}, {"backend", s.backend}, {"runs", runs}});
  }
  Json groups = Json::array(), fixed = Json::array();
  for (const TriageGroup& g : t.groups) groups.push_back(json_group(g));
  for (const TriageGroup& g : t.fixed) fixed.push_back(json_group(g));
  const Json out{{"run", {{"run_id", t.run.run_id}, {"git_sha", t.run.git_sha}, {"started_at", t.run.started_at}}},
                 {"compared", compared},
                 {"counts",
                  {{"failing", t.failing_cases()},
                   {"groups", t.groups.size()},
                   {"new", n.fresh},
                   {"persisting", n.persisting},
                   {"flaky", n.flaky},
                   {"fixed", fixed_cases(t)},
                   {"xfailed", t.xfailed}}},
                 {"groups", groups},
                 {"fixed", fixed}};
  return out.dump(2) + "\n";
}

}  // namespace meshtest::reports
