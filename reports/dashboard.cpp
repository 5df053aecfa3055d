// Dashboard page shell: style, section order, writing the file.
#include "reports/dashboard.h"

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
.none{color:#6b7280;font-style:italic}.bad{color:#b3261e;font-weight:600}.good{color:#1e7d3a;font-weight:600}
.cell{display:inline-block;width:14px;height:14px;border-radius:2px}.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:12px}
)css";

}  // namespace

std::string render_dashboard(const std::vector<RunResults>& runs, const DashboardOptions& options) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                     "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
                     "<title>" + xml_escape(options.title) + "</title><style>" + kStyle + "</style></head><body>";
  if (runs.empty()) {
    return html + "<header><h1>" + xml_escape(options.title) +
           "</h1></header><main><section><p class=\"none\">The results store has no runs yet: "
           "<code>meshtest run</code> records one.</p></section></main></body></html>\n";
  }
  dashboard::Page page{runs, options, {}};
  for (const RunResults& r : runs) page.finals.push_back(final_results(r.results));
  html += dashboard::header(page) + "<main>";
  for (auto* section : {dashboard::overview, dashboard::changes, dashboard::trends, dashboard::failure_groups,
                        dashboard::model_history, dashboard::flaky, dashboard::slowest, dashboard::guidance,
                        dashboard::all_cases}) {
    html += section(page);
  }
  return html + "</main></body></html>\n";
}

void write_dashboard(const std::string& path, const std::vector<RunResults>& runs, const DashboardOptions& options) {
  write_file_atomically(path, render_dashboard(runs, options), "the dashboard");
}

}  // namespace meshtest::reports
