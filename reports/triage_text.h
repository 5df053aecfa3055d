// A triage (reports/triage.h) written out: a console table, Markdown ready to
// paste into an issue or a chat, and JSON with stable keys
// (docs: docs/how-to/dashboard.md, `triage`).
#pragma once

#include <string>

#include "reports/triage.h"

namespace meshtest::reports {

// One line per group (label counts, class, component, cases, summary), its cases under it; fixed cases last.
std::string triage_console(const Triage& triage);
// A heading, what was compared, a summary table of the groups, each group's cases, the fixed ones.
std::string triage_markdown(const Triage& triage);
// {"run", "compared", "counts", "groups", "fixed"}: the same facts, keys in a fixed order.
std::string triage_json(const Triage& triage);

}  // namespace meshtest::reports
