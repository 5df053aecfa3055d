// Encoding, tab and nesting-depth checks on raw YAML text (see yaml_prescan.h).
#include "config/yaml_prescan.h"

#include <cstdio>
#include <optional>

namespace meshtest::config {

namespace {

// 1-based column of byte `offset` in `line`, counting UTF-8 code points.
int column_of(std::string_view line, size_t offset) {
  int col = 1;
  for (size_t i = 0; i < offset && i < line.size(); ++i) col += (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80;
  return col;
}

// Length of the UTF-8 sequence starting at s[i], or 0 when it is invalid
// (truncated, overlong, surrogate, beyond U+10FFFF).
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c == 0xE0) n = 3, lo = 0xA0;
  else if (c == 0xED) n = 3, hi = 0x9F;
  else if (c >= 0xE1 && c <= 0xEF) n = 3;
  else if (c == 0xF0) n = 4, lo = 0x90;
  else if (c == 0xF4) n = 4, hi = 0x8F;
  else if (c >= 0xF1 && c <= 0xF3) n = 4;
  else return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

std::optional<Diagnostic> check_encoding(std::string_view text, const std::string& file) {
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const auto here = [&] { return SourceLocation{file, line, column_of(text.substr(line_start), i - line_start)}; };
    const size_t n = utf8_sequence_length(text, i);
    char hex[64];
    if (n == 0) {
      std::snprintf(hex, sizeof hex, "0x%02x", c);
      return Diagnostic{here(), std::string("invalid UTF-8 (byte ") + hex + "); test_config files must be UTF-8"};
    }
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
      std::snprintf(hex, sizeof hex, "U+%04X", c);
      return Diagnostic{here(), std::string("control character ") + hex + " is not allowed in YAML"};
    }
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    i += n;
  }
  return std::nullopt;
}

class DepthScanner {
 public:
  DepthScanner(const std::string& file, const PrescanLimits& limits, std::vector<Diagnostic>& out)
      : file_(file), limits_(limits), out_(out) {}

  void scan(std::string_view text) {
    size_t start = 0;
    for (int line_no = 1; start <= text.size() && !too_deep_; ++line_no) {
      size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      scan_line(text.substr(start, end - start), line_no);
      start = end + 1;
    }
    // yaml-cpp lets the end of the file close a quoted string; a test_config file may not.
    if (quote_ != Quote::None && !too_deep_) {
      out_.push_back({quote_start_, std::string("unterminated ") + (quote_ == Quote::Single ? "'" : "\"") +
                                        "-quoted string (it runs to the end of the file)"});
    }
  }

 private:
  enum class Quote { None, Single, Double };

  static bool blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }
  static bool ends_token(std::string_view line, size_t i) { return i >= line.size() || blank(line[i]); }

  void scan_line(std::string_view line, int line_no) {
    size_t i = 0;
    if (quote_ == Quote::None) {
      while (i < line.size() && line[i] == ' ') ++i;
      if (line.find_first_not_of(" \t\r", i) == std::string_view::npos) return;  // blank line
      if (block_scalar_parent_ && (i > *block_scalar_parent_)) return;            // block scalar content
      block_scalar_parent_.reset();
      if (line[i] == '\t' && flow_ == 0) {
        out_.push_back({{file_, line_no, column_of(line, i)}, "tab character in indentation (YAML indents with spaces only)"});
        return;
      }
      indicators_ = 0;
      if (flow_ == 0) {
        while (!indents_.empty() && indents_.back() > i) indents_.pop_back();
        if (indents_.empty() || indents_.back() < i) indents_.push_back(i);
        check_depth(line, line_no, i);
      }
    }
    indicators_ = 0;
    bool token_start = quote_ == Quote::None;
    const size_t indent = i;
    for (; i < line.size() && !too_deep_; ++i) {
      const char c = line[i];
      if (quote_ == Quote::Single) {
        if (c == '\'' && i + 1 < line.size() && line[i + 1] == '\'') ++i;
        else if (c == '\'') quote_ = Quote::None;
        continue;
      }
      if (quote_ == Quote::Double) {
        if (c == '\\') ++i;
        else if (c == '"') quote_ = Quote::None;
        continue;
      }
      if (blank(c)) continue;
      if (c == '#' && (i == 0 || blank(line[i - 1]))) return;  // comment
      if (token_start) {
        if ((c == '-' || c == '?') && flow_ == 0 && ends_token(line, i + 1)) {
          ++indicators_;
          check_depth(line, line_no, i);
          continue;
        }
        if (c == '\'' || c == '"') {
          quote_ = c == '\'' ? Quote::Single : Quote::Double;
          quote_start_ = {file_, line_no, column_of(line, i)};
          token_start = false;
          continue;
        }
        if ((c == '|' || c == '>') && flow_ == 0) {
          block_scalar_parent_ = indent;
          return;
        }
        if (c == '[' || c == '{') {
          ++flow_;
          check_depth(line, line_no, i);
          continue;
        }
        token_start = false;
      }
      if (flow_ > 0) {
        if (c == '[' || c == '{') {
          ++flow_;
          check_depth(line, line_no, i);
          token_start = true;
        } else if (c == ']' || c == '}') {
          --flow_;
        } else if (c == ',') {
          token_start = true;
        } else if (c == ':' && (ends_token(line, i + 1) || line[i + 1] == ',' || line[i + 1] == ']' ||
                                line[i + 1] == '}')) {
          token_start = true;
        }
      } else if (c == ':' && ends_token(line, i + 1)) {
        token_start = true;
      }
    }
  }

  void check_depth(std::string_view line, int line_no, size_t offset) {
    const size_t depth = indents_.size() + static_cast<size_t>(indicators_) + static_cast<size_t>(flow_);
    if (depth <= static_cast<size_t>(limits_.max_depth)) return;
    too_deep_ = true;
    out_.push_back({{file_, line_no, column_of(line, offset)},
                    "nesting deeper than " + std::to_string(limits_.max_depth) +
                        " levels (a test_config entry needs at most 6)"});
  }

  const std::string& file_;
  const PrescanLimits& limits_;
  std::vector<Diagnostic>& out_;
  Quote quote_ = Quote::None;
  SourceLocation quote_start_;
  int flow_ = 0;
  int indicators_ = 0;
  std::vector<size_t> indents_;
  std::optional<size_t> block_scalar_parent_;
  bool too_deep_ = false;
};

}  // namespace

std::vector<Diagnostic> prescan_yaml(std::string_view text, const std::string& file, const PrescanLimits& limits) {
  std::vector<Diagnostic> out;
  if (text.size() > limits.max_bytes) {
    char size[64];
    std::snprintf(size, sizeof size, "%.1f MiB, over the %.0f MiB limit", text.size() / 1048576.0,
                  limits.max_bytes / 1048576.0);
    out.push_back({{file, 1, 1}, std::string("file is ") + size + " for a test_config file (split it)"});
    return out;
  }
  if (auto bad = check_encoding(text, file)) {
    out.push_back(*bad);
    return out;
  }
  DepthScanner(file, limits, out).scan(text);
  return out;
}

}  // namespace meshtest::config
