// The little Markdown the docs tests read: fenced code blocks (with their info
// string), ATX headings and their GitHub anchors, and the links outside code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshtest::docs {

struct FencedBlock {
  std::string info;  // the text after the opening fence, trimmed: "sh runnable", "cpp", ""
  std::string body;  // the lines between the fences, each ending in '\n'
  int line = 0;      // 1-based line of the opening fence
};

struct Link {
  std::string target;  // as written: "../reference/cli.md#run", "#anchor"
  int line = 0;
};

// Every fenced block (``` or ~~~, indented by any spaces, as inside list items), in order.
std::vector<FencedBlock> fenced_blocks(std::string_view markdown);

// GitHub's anchor for a heading's text: inline code, emphasis and link targets dropped to their
// text, lower-cased, every character but letters, digits, '_', '-' and space dropped, spaces made '-'.
std::string github_slug(std::string_view heading_text);

// The anchors a page has: its headings' slugs (a repeated slug gets -1, -2, ...) and the
// id/name of inline HTML anchors (<a id="x">).
std::vector<std::string> anchors(std::string_view markdown);

// Inline links and images ([t](x), ![t](x)) and reference definitions ([t]: x), outside fenced
// blocks and inline code spans.
std::vector<Link> links(std::string_view markdown);

}  // namespace meshtest::docs
