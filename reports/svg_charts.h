// Inline SVG charts for the HTML dashboard: no scripts, no external assets.
// Every label is escaped; values come with a <title> tooltip.
#pragma once

#include <string>
#include <vector>

namespace meshtest::reports {

struct ChartPoint {
  std::string label;  // x label / tooltip
  double value = 0;   // NaN: a gap
};

// A line chart over the points, y axis from y_min to y_max.
std::string svg_line_chart(const std::string& id, const std::vector<ChartPoint>& points, double y_min, double y_max,
                           const std::string& value_format);

struct BarSegment {
  std::string label;
  double value = 0;
  std::string color;
};

// One horizontal bar split into segments (e.g. outcomes of a run).
std::string svg_stacked_bar(const std::string& id, const std::vector<BarSegment>& segments);

// Horizontal bars, one per item, longest first as given (e.g. slowest cases).
std::string svg_bar_chart(const std::string& id, const std::vector<BarSegment>& bars, const std::string& unit);

// Vertical columns in the given order (e.g. the phases of a case), each
// labelled below and with its value above (NaN: no column, "-"), and, when
// `mark.value` is finite, a dashed horizontal line across them at that value
// labelled with `mark.label` (e.g. a device's peak); the y axis runs from 0 to
// the highest of them.
std::string svg_column_chart(const std::string& id, const std::vector<ChartPoint>& columns, const ChartPoint& mark,
                             const std::string& value_format);

// printf-style formatting of one double, e.g. ("%.1f%%", 97.5).
std::string format_number(const std::string& format, double value);

}  // namespace meshtest::reports
