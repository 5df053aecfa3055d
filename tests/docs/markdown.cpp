// The Markdown reading behind the docs tests (markdown.h).
#include "tests/docs/markdown.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <regex>

namespace meshtest::docs {
namespace {

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

std::string trim(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

// The opening fence of a line ("```" or "~~~", or longer), or "" when the line opens none.
std::string fence_of(std::string_view line) {
  line = trim_left(line);
  if (line.empty() || (line.front() != '`' && line.front() != '~')) return "";
  size_t n = 0;
  while (n < line.size() && line[n] == line.front()) ++n;
  return n >= 3 ? std::string(line.substr(0, n)) : "";
}

template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  int number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    fn(line, ++number);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

// The text with fenced blocks and inline code spans blanked to spaces (newlines kept), so
// what looks like a link or a heading inside code is not read as one.
std::string prose_only(std::string_view markdown) {
  std::string out;
  std::string open_fence;
  for_each_line(markdown, [&](std::string_view line, int) {
    std::string kept(line);
    const std::string fence = fence_of(line);
    if (!open_fence.empty()) {
      if (fence.size() >= open_fence.size() && fence[0] == open_fence[0] &&
          trim(line) == fence)
        open_fence.clear();
      kept.assign(line.size(), ' ');
    } else if (!fence.empty()) {
      open_fence = fence;
      kept.assign(line.size(), ' ');
    } else {
      // Inline code: a run of backticks up to the next run of the same length on the line.
      for (size_t i = 0; i < kept.size();) {
        if (kept[i] != '`') { ++i; continue; }
        size_t run = 0;
        while (i + run < kept.size() && kept[i + run] == '`') ++run;
        const size_t close = kept.find(std::string(run, '`'), i + run);
        if (close == std::string::npos) { i += run; continue; }
        for (size_t j = i; j < close + run; ++j) kept[j] = ' ';
        i = close + run;
      }
    }
    out += kept;
    out += '\n';
  });
  return out;
}

// Decodes one UTF-8 code point at s[i], advancing i (a malformed byte reads as itself).
uint32_t next_code_point(std::string_view s, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  const int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
  if (extra == 0 || i + extra >= s.size()) {
    ++i;
    return b;
  }
  uint32_t cp = b & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  i += extra + 1;
  return cp;
}

// Non-ASCII punctuation and symbols GitHub drops from anchors (dashes, arrows, math, emoji, ...).
bool is_dropped_symbol(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0xBF) || cp == 0xD7 || cp == 0xF7 || (cp >= 0x2000 && cp <= 0x2BFF) ||
         (cp >= 0x3000 && cp <= 0x303F) || cp >= 0x1F000;
}

}  // namespace

std::vector<FencedBlock> fenced_blocks(std::string_view markdown) {
  std::vector<FencedBlock> blocks;
  std::string open_fence;
  for_each_line(markdown, [&](std::string_view line, int number) {
    const std::string fence = fence_of(line);
    if (open_fence.empty()) {
      if (fence.empty()) return;
      open_fence = fence;
      blocks.push_back({trim(trim_left(line).substr(fence.size())), "", number});
    } else if (fence.size() >= open_fence.size() && fence[0] == open_fence[0] && trim(line) == fence) {
      open_fence.clear();
    } else {
      blocks.back().body.append(line).append("\n");
    }
  });
  return blocks;
}

std::string github_slug(std::string_view heading_text) {
  static const std::regex link(R"(!?\[([^\]]*)\]\([^)]*\))");
  static const std::regex html_tag(R"(<[^>]*>)");
  std::string text = std::regex_replace(std::string(heading_text), link, "$1");
  text = std::regex_replace(text, html_tag, "");
  std::string slug;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (static_cast<unsigned char>(c) < 0x80) {
      ++i;
      if (c >= 'A' && c <= 'Z') slug += static_cast<char>(c - 'A' + 'a');
      else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') slug += c;
      else if (c == ' ') slug += '-';
      continue;
    }
    const size_t start = i;
    if (!is_dropped_symbol(next_code_point(text, i))) slug.append(text, start, i - start);
  }
  return slug;
}

std::vector<std::string> anchors(std::string_view markdown) {
  static const std::regex heading(R"(^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$)");
  static const std::regex html_anchor(R"re(<a\s+(?:id|name)="([^"]+)")re");
  std::vector<std::string> out;
  std::map<std::string, int> seen;
  const std::string prose = prose_only(markdown);
  // Headings from the original lines (their inline code counts), only where prose_only kept the line.
  std::string_view original = markdown;
  std::string_view blanked = prose;
  for_each_line(original, [&](std::string_view line, int) {
    const size_t end = blanked.find('\n');
    const std::string_view kept = blanked.substr(0, end);
    blanked.remove_prefix(end == std::string_view::npos ? blanked.size() : end + 1);
    if (trim(kept).empty() && !trim(line).empty()) return;  // inside a fenced block
    std::smatch m;
    const std::string text(line);
    if (std::regex_match(text, m, heading)) {
      const std::string base = github_slug(m[2].str());
      const int n = seen[base]++;
      out.push_back(n == 0 ? base : base + "-" + std::to_string(n));
    }
  });
  for (std::sregex_iterator it(prose.begin(), prose.end(), html_anchor), end; it != end; ++it)
    out.push_back((*it)[1].str());
  return out;
}

std::vector<Link> links(std::string_view markdown) {
  static const std::regex inline_link(R"re(!?\[[^\]]*\]\(\s*<?([^()\s<>]+)>?(?:\s+"[^"]*")?\s*\))re");
  static const std::regex reference_definition(R"(\n {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?)");
  const std::string prose = "\n" + prose_only(markdown);
  std::vector<Link> out;
  const auto line_of = [&](std::string::const_iterator at) {
    return static_cast<int>(std::count(prose.begin(), at, '\n'));
  };
  for (const std::regex* pattern : {&inline_link, &reference_definition})
    for (std::sregex_iterator it(prose.begin(), prose.end(), *pattern), end; it != end; ++it)
      out.push_back({(*it)[1].str(), line_of(prose.begin() + (*it).position(1))});
  std::sort(out.begin(), out.end(), [](const Link& a, const Link& b) { return a.line < b.line; });
  return out;
}

}  // namespace meshtest::docs
