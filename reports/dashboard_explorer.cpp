// Dashboard sections for finding one's way through a nightly of thousands of
// cases: the filter bar (arch, group, status, family, variant, run mode,
// parallelism, id text) and the rows it filters — every case of the latest
// run on every arch, per-variant history — plus per-arch history and the
// placeholders, which no filter hides. The filtering itself is the inline
// script in dashboard.cpp; rows carry what it filters on as data-* attributes.
#include <algorithm>
#include <set>
#include <tuple>

#include "reports/dashboard_sections.h"

namespace meshtest::reports::dashboard {

namespace {

// The filter keys, as data-* attribute names, with their labels.
const std::vector<std::pair<std::string, std::string>> kFilters = {
    {"arch", "arch"},       {"group", "group"},       {"status", "status"},         {"family", "family"},
    {"variant", "variant"}, {"mode", "run mode"},     {"par", "parallelism"}};

std::string family_of(const CaseResult& r) {
  if (!r.model.empty()) return r.model;
  return r.loader_dir.substr(0, r.loader_dir.find('/'));
}

// The data-* values of a case's row, by filter key.
std::map<std::string, std::string> filter_values(const CaseResult& r) {
  return {{"arch", r.arch},       {"group", r.group},     {"status", std::string(outcome_name(r.outcome))},
          {"family", family_of(r)}, {"variant", r.variant}, {"mode", r.run_mode},
          {"par", r.parallelism}};
}

std::string data_attributes(const std::map<std::string, std::string>& values) {
  std::string out = " data-f";
  for (const auto& [key, value] : values) out += " data-" + key + "=\"" + esc(value) + "\"";
  return out;
}

// Final results of the latest run, every arch.
const std::map<ArchCase, const CaseResult*>& latest_every_arch(const Page& page) {
  return page.every_arch_finals.back();
}

std::string first_line(const std::string& text, size_t limit) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > limit ? line.substr(0, limit) + "…" : line;
}

bool is_placeholder(const CaseResult& r) {
  return std::find(r.markers.begin(), r.markers.end(), "placeholder") != r.markers.end();
}

// "2 passed, 1 xfailed": the non-zero counts.
std::string tally_text(const Tally& t) {
  std::string out;
  for (const auto& [n, what] : {std::pair<size_t, const char*>{t.passed, "passed"}, {t.failed, "failed"},
                                {t.xfailed, "xfailed"}, {t.skipped, "skipped"}}) {
    if (n > 0) out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  }
  return out.empty() ? "no result" : out;
}

}  // namespace

std::string shown_count(const std::string& table_id, size_t rows) {
  return "<p class=\"shown\"><b data-count-for=\"" + table_id + "\">" + std::to_string(rows) + "</b> of " +
         std::to_string(rows) + " shown (filters above)</p>";
}

std::string case_filter_attributes(const CaseResult& r) { return data_attributes(filter_values(r)); }

std::string filter_bar(const Page& page) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& [key, r] : latest_every_arch(page)) {
    for (const auto& [k, v] : filter_values(*r)) values[k].insert(v);
  }
  std::string html = "<div class=\"filters\" id=\"filters\"><b>Filter</b>";
  for (const auto& [key, label] : kFilters) {
    html += "<label>" + esc(label) + " <select data-key=\"" + key + "\"><option value=\"\">all</option>";
    for (const std::string& v : values[key]) html += "<option>" + esc(v) + "</option>";
    html += "</select></label>";
  }
  return html +
         "<label>id <input type=\"search\" data-key=\"id\" placeholder=\"contains\"></label>"
         "<span class=\"none\">(also from the address: #arch=n150&amp;status=failed)</span></div>";
}

std::string case_explorer(const Page& page) {
  std::string rows;
  for (const auto& [key, r] : latest_every_arch(page)) {
    std::string glyphs;
    for (const auto& finals : page.every_arch_finals) {
      const auto it = finals.find(key);
      Tally t;
      if (it != finals.end()) t.add(it->second->outcome);
      glyphs += tally_glyph(t);
    }
    const std::string outcome(outcome_name(r->outcome));
    rows += "<tr" + case_filter_attributes(*r) + ">" + cell(r->test_id, "id") + cell(r->arch) +
            "<td><i class=\"cell o-" + outcome + "\"></i> " + outcome + "</td>" +
            cell(r->status) + cell(r->bringup_status) + number_cell(r->pcc, "%.4f") +
            number_cell(r->wall_seconds, "%.2f") + "<td>" + glyph_strip(glyphs) + "</td>" +
            cell(first_line(r->error_message, 240) + (r->first_bad_op.empty() ? "" : " | first op past its per-op thresholds: " + r->first_bad_op), "msg") + "</tr>";
  }
  const size_t n = latest_every_arch(page).size();
  return section("cases", "Every case of the latest run, every arch (" + std::to_string(n) + ")",
                 shown_count("case-table", n) +
                     "<div class=\"scroll\"><table id=\"case-table\"><thead><tr><th>test id</th><th>arch</th>"
                     "<th>outcome</th><th>config status</th><th>bring-up status</th><th class=\"num\">PCC</th>"
                     "<th class=\"num\">wall s</th><th>history (P pass, F fail, X xfail, S skip, . none)</th>"
                     "<th>message</th></tr></thead><tbody>" +
                     rows + "</tbody></table></div>");
}

std::string variant_history(const Page& page) {
  struct Row {
    std::vector<Tally> runs;
    std::string group;
    size_t cases = 0;
  };
  using Key = std::tuple<std::string, std::string, std::string>;  // family, variant, arch
  std::map<Key, Row> rows;
  const size_t n = page.every_arch_finals.size();
  for (size_t i = 0; i < n; ++i) {
    for (const auto& [key, r] : page.every_arch_finals[i]) {
      Row& row = rows[{family_of(*r), r->variant, r->arch}];
      row.runs.resize(n);
      row.runs[i].add(r->outcome);
      if (row.group.empty()) row.group = r->group;
      if (i + 1 == n) ++row.cases;
    }
  }
  std::string html;
  for (const auto& [key, row] : rows) {
    const auto& [family, variant, arch] = key;
    std::string glyphs;
    for (const Tally& t : row.runs) glyphs += tally_glyph(t);
    const Tally& last = row.runs.back();
    html += "<tr" +
            data_attributes({{"family", family}, {"variant", variant}, {"arch", arch}, {"group", row.group}}) + ">" +
            cell(family) + cell(variant, "id") + cell(arch) +
            "<td class=\"num\">" + std::to_string(row.cases) + "</td><td>" + glyph_strip(glyphs) + "</td>" +
            cell(tally_text(last)) +
            "</tr>";
  }
  return section("variant-history",
                 "Per-variant history (every parallelism and run mode of a variant on one arch; oldest → newest)",
                 shown_count("variant-table", rows.size()) +
                     "<div class=\"scroll\"><table id=\"variant-table\"><thead><tr><th>family</th><th>variant</th>"
                     "<th>arch</th><th class=\"num\">cases (latest)</th><th>history (P nothing failed, F a failure, "
                     "X only xfails, S skipped, . none)</th><th>latest run</th></tr></thead><tbody>" +
                     html + "</tbody></table></div>");
}

std::string arch_history(const Page& page) {
  const auto rows = tally_rows(page.every_arch_finals, [](const ArchCase& key, const CaseResult&) { return key.first; });
  return history_section("arch-history", "arch", "arch-history-chart", rows, page.every_arch);
}

std::string placeholders(const Page& page) {
  std::string rows;
  size_t count = 0;
  for (const auto& [key, r] : latest_every_arch(page)) {
    if (!is_placeholder(*r)) continue;
    ++count;
    rows += "<tr class=\"placeholder\">" + cell(r->test_id, "id") + cell(r->arch) + cell(r->bringup_status) +
            cell(r->reason, "msg") + "</tr>";
  }
  return section("placeholders",
                 "Placeholders: planned models without a loader (" + std::to_string(count) +
                     "; listed whatever the filters)",
                 count == 0 ? none("No placeholder models in the latest run.")
                            : table({"test id", "arch", "bring-up status", "reason"}, rows));
}

}  // namespace meshtest::reports::dashboard
