// Dashboard page shell: style, the filter script, section order, writing the file.
#include "reports/dashboard.h"

#include <random>

#include "core/atomic_file.h"
#include "reports/dashboard_sections.h"
#include "reports/junit_xml.h"

namespace meshtest::reports {

namespace {

const char* const kStyle = R"css(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
header .meta{color:#c5cad3;font-size:12px}
main{padding:8px 24px 40px;max-width:1400px}
section{background:#fff;border-radius:6px;box-shadow:0 1px 2px #0002;margin:16px 0;padding:12px 16px}
h2{font-size:16px;margin:4px 0 10px}h3{font-size:14px;margin:12px 0 6px}
table{border-collapse:collapse;font-size:12px}td,th{border-bottom:1px solid #e3e5e8;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f0f1f3;position:sticky;top:0}td.num,th.num{text-align:right}
.tiles{display:flex;gap:10px;flex-wrap:wrap}.tile{padding:8px 14px;border-radius:6px;color:#fff;min-width:70px}
.tile b{display:block;font-size:22px}.id{font-family:ui-monospace,monospace;word-break:break-all}
.msg{font-family:ui-monospace,monospace;white-space:pre-wrap;max-width:720px;color:#5b2222}
.chart{width:100%;max-width:760px;height:auto;display:block}.chart .grid{stroke:#e3e5e8}.chart .axis{font-size:10px;fill:#5f6672}
.chart .line{fill:none;stroke:#1f77b4;stroke-width:2}.chart .dot{fill:#1f77b4}.chart .barlabel{fill:#fff;font-size:12px}
.chart.small{max-width:380px;min-width:300px}.chart .col{fill:#1f77b4}.chart .mark{stroke:#b3261e;stroke-width:1.5;stroke-dasharray:5 3}
.none{color:#6b7280;font-style:italic}.bad{color:#b3261e;font-weight:600}.good{color:#1e7d3a;font-weight:600}
.cell{display:inline-block;width:14px;height:14px;border-radius:2px}.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:12px}
.id{word-break:normal;overflow-wrap:anywhere;min-width:16em;max-width:44em}
.filters{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid #e3e5e8;padding:8px 24px;display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;font-size:12px}
.filters select,.filters input{font-size:12px;max-width:14em}
.scroll{max-height:70vh;overflow:auto}.shown{margin:0 0 6px;color:#5f6672}
.hist{font-family:ui-monospace,monospace;letter-spacing:1px;white-space:nowrap}.hist i{font-style:normal}
.gP{color:#2e9d4f}.gF{color:#d9433b;font-weight:700}.gX{color:#b7791f}.gS,.gN{color:#9aa0a6}
.grid rect{width:14px;height:14px;rx:2px}.cP{fill:#2e9d4f}.cF{fill:#d9433b}.cO{fill:#f07c1e}.cX{fill:#e3a21a}.cN{fill:#e3e5e8}
.o-passed{background:#2e9d4f}.o-failed{background:#d9433b}.o-error{background:#8e2b8e}.o-xfailed{background:#e3a21a}
.o-xpassed{background:#1f77b4}.o-skipped{background:#9aa0a6}
section{content-visibility:auto;contain-intrinsic-size:auto 900px}
)css";

// Filters the rows marked data-f by the filter bar's selects (a row without
// an attribute is not filtered on it), counts what is shown per table, and
// keeps the choice in the address (#arch=n150&status=failed), so a filtered
// view can be shared or opened directly. Runs once the page is parsed.
const char* const kFilterScript = R"js(
(function () {
  var bar = document.getElementById('filters');
  if (!bar) return;
  var inputs = Array.prototype.slice.call(bar.querySelectorAll('[data-key]'));
  var tables = Array.prototype.slice.call(document.querySelectorAll('table')).filter(function (t) {
    return t.querySelector('tr[data-f]');
  });
  function wanted() {
    var w = {};
    inputs.forEach(function (i) { if (i.value) w[i.getAttribute('data-key')] = i.value.toLowerCase(); });
    return w;
  }
  function apply() {
    var w = wanted(), keys = Object.keys(w);
    tables.forEach(function (t) {
      var shown = 0, rows = t.tBodies[0].rows;
      for (var r = 0; r < rows.length; r++) {
        var row = rows[r], ok = true;
        for (var k = 0; k < keys.length && ok; k++) {
          var v = keys[k] === 'id' ? null : row.getAttribute('data-' + keys[k]);
          if (keys[k] === 'id') {  // the row's id cell contains the text
            var cell = row.querySelector('.id');
            ok = !cell || cell.textContent.toLowerCase().indexOf(w.id) >= 0;
            continue;
          }
          if (v === null) continue;
          v = v.toLowerCase();
          ok = v === w[keys[k]];
        }
        row.hidden = !ok;
        if (ok) shown++;
      }
      var count = document.querySelector('[data-count-for="' + t.id + '"]');
      if (count) count.textContent = shown;
    });
    var hash = keys.map(function (k) { return k + '=' + encodeURIComponent(w[k]); }).join('&');
    if (history.replaceState) history.replaceState(null, '', hash ? '#' + hash : location.pathname);
  }
  location.hash.replace(/^#/, '').split('&').forEach(function (pair) {
    var kv = pair.split('='), key = kv[0], value = decodeURIComponent(kv[1] || '');
    inputs.forEach(function (i) {
      if (i.getAttribute('data-key') !== key) return;
      if (i.tagName === 'SELECT') {
        for (var o = 0; o < i.options.length; o++) {
          if (i.options[o].value.toLowerCase() === value.toLowerCase()) i.value = i.options[o].value;
        }
      } else {
        i.value = value;
      }
    });
  });
  inputs.forEach(function (i) { i.addEventListener('input', apply); });
  apply();
})();
)js";

// A fresh nonce per page: the Content-Security-Policy runs only the script that carries it.
std::string script_nonce() {
  std::random_device rd;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x", rd(), rd(), rd());
  return buf;
}

}  // namespace

std::string render_dashboard(const std::vector<RunResults>& runs, const DashboardOptions& options,
                             const std::vector<RunResults>& every_arch) {
  const std::string nonce = script_nonce();
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
                     "img-src data:; script-src 'nonce-" + nonce + "'\">"
                     "<title>" + xml_escape(options.title) + "</title><style>" + kStyle + "</style></head><body>";
  if (runs.empty()) {
    return html + "<header><h1>" + xml_escape(options.title) +
           "</h1></header><main><section><p class=\"none\">The results store has no runs yet: "
           "<code>meshtest run</code> records one.</p></section></main></body></html>\n";
  }
  dashboard::Page page{runs, options, {}, every_arch.empty() ? runs : every_arch, {}};
  for (const RunResults& r : runs) page.finals.push_back(final_results(r.results));
  for (const RunResults& r : page.every_arch) {
    std::map<dashboard::ArchCase, const CaseResult*> finals;
    for (const CaseResult& c : r.results) {
      const CaseResult*& slot = finals[{c.arch, c.test_id}];
      if (!slot || c.attempt >= slot->attempt) slot = &c;
    }
    page.every_arch_finals.push_back(std::move(finals));
  }
  html += dashboard::header(page) + dashboard::filter_bar(page) + "<main>";
  for (auto* section : {dashboard::overview, dashboard::changes, dashboard::trends, dashboard::triage, dashboard::failure_groups,
                        dashboard::xfails, dashboard::placeholders, dashboard::arch_history,
                        dashboard::model_history, dashboard::case_explorer, dashboard::memory_timeline,
                        dashboard::variant_history,
                        dashboard::flaky, dashboard::slowest, dashboard::guidance}) {
    html += section(page);
  }
  return html + "</main><script nonce=\"" + nonce + "\">" + kFilterScript + "</script></body></html>\n";
}

void write_dashboard(const std::string& path, const std::vector<RunResults>& runs, const DashboardOptions& options,
                     const std::vector<RunResults>& every_arch) {
  write_file_atomically(path, render_dashboard(runs, options, every_arch), "the dashboard");
}

}  // namespace meshtest::reports
