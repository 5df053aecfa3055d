// SVG chart rendering.
#include "reports/svg_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "reports/junit_xml.h"

namespace meshtest::reports {

std::string format_number(const std::string& format, double value) {
  if (!std::isfinite(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format.c_str(), value);
  return buf;
}

namespace {

std::string num(double v) { return format_number("%.1f", v); }

}  // namespace

std::string svg_line_chart(const std::string& id, const std::vector<ChartPoint>& points, double y_min, double y_max,
                           const std::string& value_format) {
  const double w = 640, h = 200, left = 56, right = 12, top = 12, bottom = 28;
  const double span = y_max > y_min ? y_max - y_min : 1;
  const size_t n = points.size();
  auto x_at = [&](size_t i) { return left + (n <= 1 ? (w - left - right) / 2 : i * (w - left - right) / (n - 1)); };
  auto y_at = [&](double v) { return top + (h - top - bottom) * (1 - (std::clamp(v, y_min, y_max) - y_min) / span); };
  std::string svg = "<svg id=\"" + xml_escape(id) + "\" class=\"chart\" viewBox=\"0 0 640 200\" role=\"img\">";
  for (int g = 0; g <= 4; ++g) {
    const double v = y_min + span * g / 4, y = y_at(v);
    svg += "<line class=\"grid\" x1=\"" + num(left) + "\" x2=\"" + num(w - right) + "\" y1=\"" + num(y) + "\" y2=\"" +
           num(y) + "\"/><text class=\"axis\" x=\"" + num(left - 4) + "\" y=\"" + num(y + 4) +
           "\" text-anchor=\"end\">" + xml_escape(format_number(value_format, v)) + "</text>";
  }
  std::string path;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(points[i].value)) continue;
    path += (path.empty() ? "M" : " L") + num(x_at(i)) + " " + num(y_at(points[i].value));
  }
  if (!path.empty()) svg += "<path class=\"line\" d=\"" + path + "\"/>";
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(points[i].value)) continue;
    svg += "<circle class=\"dot\" cx=\"" + num(x_at(i)) + "\" cy=\"" + num(y_at(points[i].value)) +
           "\" r=\"3.5\"><title>" + xml_escape(points[i].label + ": " + format_number(value_format, points[i].value)) +
           "</title></circle>";
  }
  svg += "<text class=\"axis\" x=\"" + num(left) + "\" y=\"" + num(h - 8) + "\">" +
         (n ? xml_escape(points.front().label) : "") + "</text><text class=\"axis\" x=\"" + num(w - right) +
         "\" y=\"" + num(h - 8) + "\" text-anchor=\"end\">" + (n ? xml_escape(points.back().label) : "") + "</text>";
  return svg + "</svg>";
}

std::string svg_stacked_bar(const std::string& id, const std::vector<BarSegment>& segments) {
  double total = 0;
  for (const auto& s : segments) total += s.value;
  std::string svg = "<svg id=\"" + xml_escape(id) + "\" class=\"chart bar\" viewBox=\"0 0 640 40\" role=\"img\">";
  double x = 0;
  for (const auto& s : segments) {
    if (s.value <= 0 || total <= 0) continue;
    const double width = 640 * s.value / total;
    svg += "<rect x=\"" + num(x) + "\" y=\"4\" width=\"" + num(width) + "\" height=\"32\" fill=\"" +
           xml_escape(s.color) + "\"><title>" + xml_escape(s.label + ": " + format_number("%.0f", s.value)) +
           "</title></rect>";
    if (width > 40) {
      svg += "<text class=\"barlabel\" x=\"" + num(x + width / 2) + "\" y=\"25\" text-anchor=\"middle\">" +
             xml_escape(format_number("%.0f", s.value)) + "</text>";
    }
    x += width;
  }
  return svg + "</svg>";
}

std::string svg_bar_chart(const std::string& id, const std::vector<BarSegment>& bars, const std::string& unit) {
  double top_value = 0;
  for (const auto& b : bars) top_value = std::max(top_value, b.value);
  const double row = 18, label_w = 360, w = 640;
  const double h = row * static_cast<double>(bars.size()) + 4;
  std::string svg = "<svg id=\"" + xml_escape(id) + "\" class=\"chart\" viewBox=\"0 0 640 " + num(h) +
                    "\" role=\"img\">";
  for (size_t i = 0; i < bars.size(); ++i) {
    const double y = 2 + row * static_cast<double>(i);
    const double width = top_value > 0 ? (w - label_w - 70) * bars[i].value / top_value : 0;
    std::string label = bars[i].label;
    if (label.size() > 58) label = "…" + label.substr(label.size() - 57);
    svg += "<text class=\"axis\" x=\"" + num(label_w - 6) + "\" y=\"" + num(y + 12) + "\" text-anchor=\"end\">" +
           xml_escape(label) + "</text><rect x=\"" + num(label_w) + "\" y=\"" + num(y + 2) + "\" width=\"" +
           num(width) + "\" height=\"" + num(row - 5) + "\" fill=\"" + xml_escape(bars[i].color) + "\"><title>" +
           xml_escape(bars[i].label) + "</title></rect><text class=\"axis\" x=\"" + num(label_w + width + 4) +
           "\" y=\"" + num(y + 12) + "\">" + xml_escape(format_number("%.2f", bars[i].value) + unit) + "</text>";
  }
  return svg + "</svg>";
}

std::string svg_column_chart(const std::string& id, const std::vector<ChartPoint>& columns, const ChartPoint& mark,
                             const std::string& value_format) {
  const double w = 360, h = 160, left = 8, right = 8, top = 26, bottom = 22;
  double top_value = std::isfinite(mark.value) ? mark.value : 0;
  for (const ChartPoint& c : columns) {
    if (std::isfinite(c.value)) top_value = std::max(top_value, c.value);
  }
  const double slot = columns.empty() ? 0 : (w - left - right) / static_cast<double>(columns.size());
  auto y_at = [&](double v) {
    return h - bottom - (top_value > 0 ? (h - top - bottom) * std::max(v, 0.0) / top_value : 0);
  };
  std::string svg = "<svg id=\"" + xml_escape(id) + "\" class=\"chart small\" viewBox=\"0 0 360 160\" role=\"img\">" +
                    "<line class=\"grid\" x1=\"" + num(left) + "\" x2=\"" + num(w - right) + "\" y1=\"" +
                    num(h - bottom) + "\" y2=\"" + num(h - bottom) + "\"/>";
  for (size_t i = 0; i < columns.size(); ++i) {
    const ChartPoint& c = columns[i];
    const double x = left + slot * static_cast<double>(i), mid = x + slot / 2;
    const std::string value = format_number(value_format, c.value);
    if (std::isfinite(c.value)) {
      const double y = y_at(c.value);
      svg += "<rect class=\"col\" x=\"" + num(x + slot * 0.15) + "\" y=\"" + num(y) + "\" width=\"" + num(slot * 0.7) +
             "\" height=\"" + num(h - bottom - y) + "\"><title>" + xml_escape(c.label + ": " + value) +
             "</title></rect>";
    }
    const double value_y = (std::isfinite(c.value) ? y_at(c.value) : h - bottom) - 4;
    svg += "<text class=\"axis\" x=\"" + num(mid) + "\" y=\"" + num(value_y) + "\" text-anchor=\"middle\">" +
           xml_escape(value) + "</text><text class=\"axis\" x=\"" + num(mid) + "\" y=\"" + num(h - 8) +
           "\" text-anchor=\"middle\">" + xml_escape(c.label) + "</text>";
  }
  if (std::isfinite(mark.value)) {  // the line, and its legend in the top margin
    const std::string text = mark.label + ": " + format_number(value_format, mark.value);
    const double y = y_at(mark.value);
    svg += "<line class=\"mark\" x1=\"" + num(left) + "\" x2=\"" + num(w - right) + "\" y1=\"" + num(y) + "\" y2=\"" +
           num(y) + "\"><title>" + xml_escape(text) + "</title></line><line class=\"mark\" x1=\"" + num(left) +
           "\" x2=\"" + num(left + 18) + "\" y1=\"8\" y2=\"8\"/><text class=\"axis\" x=\"" + num(left + 22) +
           "\" y=\"11\">" + xml_escape(text) + "</text>";
  }
  return svg + "</svg>";
}

}  // namespace meshtest::reports
