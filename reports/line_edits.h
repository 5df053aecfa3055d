// Edits to a text file as whole lines (replace, erase, insert), applied
// without touching any other line, and shown as a unified diff.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace meshtest::reports {

class LineEdits {
 public:
  // Splits on '\n'; remembers whether the text ended with one.
  explicit LineEdits(const std::string& text);

  size_t size() const { return lines_.size(); }
  const std::string& line(size_t index) const { return lines_.at(index); }  // the original, 0-based

  void replace(size_t index, std::string text);
  void erase(size_t index);
  // Inserts before original line `index` (size() appends at the end).
  void insert_before(size_t index, std::vector<std::string> lines);
  bool changed() const { return !replaced_.empty() || !erased_.empty() || !inserted_.empty(); }

  std::string result() const;
  // "--- a\n+++ b\n@@ -l,n +l,n @@ ..." with `context` unchanged lines around each change; "" when unchanged.
  std::string unified_diff(const std::string& old_name, const std::string& new_name, int context = 3) const;

 private:
  struct DiffLine {
    char op;  // ' ', '-', '+'
    std::string text;
  };
  std::vector<DiffLine> diff_lines() const;

  std::vector<std::string> lines_;
  bool trailing_newline_ = true;
  std::map<size_t, std::string> replaced_;
  std::map<size_t, bool> erased_;
  std::map<size_t, std::vector<std::string>> inserted_;
};

}  // namespace meshtest::reports
