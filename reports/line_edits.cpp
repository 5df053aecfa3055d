// Line edits and their unified diff.
#include "reports/line_edits.h"

#include <algorithm>

namespace meshtest::reports {

LineEdits::LineEdits(const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines_.push_back(text.substr(start));
      trailing_newline_ = false;
      break;
    }
    lines_.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
}

void LineEdits::replace(size_t index, std::string text) {
  if (text == lines_.at(index)) return;
  replaced_[index] = std::move(text);
}

void LineEdits::erase(size_t index) { erased_[index] = true; }

void LineEdits::insert_before(size_t index, std::vector<std::string> lines) {
  auto& slot = inserted_[std::min(index, lines_.size())];
  slot.insert(slot.end(), std::make_move_iterator(lines.begin()), std::make_move_iterator(lines.end()));
}

std::vector<LineEdits::DiffLine> LineEdits::diff_lines() const {
  std::vector<DiffLine> out;
  for (size_t i = 0; i <= lines_.size(); ++i) {
    if (auto ins = inserted_.find(i); ins != inserted_.end()) {
      for (const auto& l : ins->second) out.push_back({'+', l});
    }
    if (i == lines_.size()) break;
    if (erased_.count(i)) {
      out.push_back({'-', lines_[i]});
    } else if (auto rep = replaced_.find(i); rep != replaced_.end()) {
      out.push_back({'-', lines_[i]});
      out.push_back({'+', rep->second});
    } else {
      out.push_back({' ', lines_[i]});
    }
  }
  // Within each run of changed lines, removals first, then additions (as diff(1) shows them).
  for (size_t begin = 0; begin < out.size();) {
    size_t end = begin;
    while (end < out.size() && out[end].op != ' ') ++end;
    std::stable_partition(out.begin() + static_cast<long>(begin), out.begin() + static_cast<long>(end),
                          [](const DiffLine& d) { return d.op == '-'; });
    begin = end == begin ? end + 1 : end;
  }
  return out;
}

std::string LineEdits::result() const {
  std::string out;
  bool first = true;
  for (const DiffLine& d : diff_lines()) {
    if (d.op == '-') continue;
    if (!first) out += '\n';
    out += d.text;
    first = false;
  }
  if (!first && trailing_newline_) out += '\n';
  return out;
}

std::string LineEdits::unified_diff(const std::string& old_name, const std::string& new_name, int context) const {
  if (!changed()) return "";
  const auto lines = diff_lines();
  const size_t ctx = static_cast<size_t>(context);
  std::string out = "--- " + old_name + "\n+++ " + new_name + "\n";
  size_t i = 0;
  int old_no = 1, new_no = 1;  // line numbers at lines[i]
  while (i < lines.size()) {
    // Next change at or after i.
    size_t change = i;
    while (change < lines.size() && lines[change].op == ' ') ++change;
    if (change == lines.size()) break;
    size_t begin = change >= i + ctx ? change - ctx : i;
    for (size_t k = i; k < begin; ++k) ++old_no, ++new_no;  // skipped context
    // Extend the hunk while the next change is within 2*ctx unchanged lines.
    size_t end = change, unchanged = 0;
    for (size_t k = change; k < lines.size(); ++k) {
      if (lines[k].op == ' ') {
        if (++unchanged > 2 * ctx) break;
      } else {
        unchanged = 0;
        end = k;
      }
    }
    const size_t stop = std::min(lines.size(), end + 1 + ctx);
    int old_count = 0, new_count = 0;
    for (size_t k = begin; k < stop; ++k) {
      old_count += lines[k].op != '+';
      new_count += lines[k].op != '-';
    }
    out += "@@ -" + std::to_string(old_count ? old_no : old_no - 1) + "," + std::to_string(old_count) + " +" +
           std::to_string(new_count ? new_no : new_no - 1) + "," + std::to_string(new_count) + " @@\n";
    for (size_t k = begin; k < stop; ++k) out += std::string(1, lines[k].op) + lines[k].text + "\n";
    old_no += old_count;
    new_no += new_count;
    i = stop;
  }
  return out;
}

}  // namespace meshtest::reports
