// Docs that cannot rot: every relative link in README.md and docs/**/*.md reaches a file of the
// checkout and every #anchor a heading of its target (GitHub's anchors); no file of the project
// depends on the folder beside the checkout that a clone does not have — a line may name it
// only as the default of a MESHTEST_* setting that points elsewhere (optional inputs: the PJRT
// header, StableHLO's test data); docs/index.md links every page under docs/.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/common/run_command.h"
#include "tests/docs/markdown.h"

namespace {

namespace fs = std::filesystem;
using meshtest::testing::fresh_test_dir;
using meshtest::testing::read_text_file;

const fs::path kSource = MESHTEST_SOURCE_DIR;
// Spelled in two parts so that this file does not hold it.
const std::string kOutsideFolder = std::string("..") + "/shared";

// README.md and every Markdown file under docs/, sorted.
std::vector<fs::path> doc_pages(const fs::path& root) {
  std::vector<fs::path> pages;
  if (fs::exists(root / "README.md")) pages.push_back(root / "README.md");
  if (fs::is_directory(root / "docs"))
    for (const auto& e : fs::recursive_directory_iterator(root / "docs"))
      if (e.is_regular_file() && e.path().extension() == ".md") pages.push_back(e.path());
  std::sort(pages.begin(), pages.end());
  return pages;
}

bool is_external(const std::string& target) {
  static const std::regex scheme(R"(^[A-Za-z][A-Za-z0-9+.-]*:)");
  return std::regex_search(target, scheme) || target.rfind("//", 0) == 0;
}

std::string percent_decoded(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool inside(const fs::path& root, const fs::path& p) {
  const auto rel = p.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

// Where a relative link of `page` leads (no anchor), normalised; `page` itself for "#anchor".
fs::path link_destination(const fs::path& page, const std::string& path_part) {
  if (path_part.empty()) return page;
  return (page.parent_path() / percent_decoded(path_part)).lexically_normal();
}

// "file:line: problem" for every relative link under `root` that leads nowhere or to a missing anchor.
std::vector<std::string> broken_links(const fs::path& root) {
  std::vector<std::string> problems;
  for (const auto& page : doc_pages(root)) {
    const std::string text = read_text_file(page.string());
    const std::string where = page.lexically_relative(root).string();
    for (const auto& link : meshtest::docs::links(text)) {
      if (is_external(link.target)) continue;
      const size_t hash = link.target.find('#');
      const std::string path_part = link.target.substr(0, hash);
      const std::string anchor = hash == std::string::npos ? "" : link.target.substr(hash + 1);
      const fs::path dest = link_destination(page, path_part);
      const std::string at = where + ":" + std::to_string(link.line) + ": link '" + link.target + "'";
      if (!inside(root, dest)) {
        problems.push_back(at + " leads outside the checkout");
      } else if (!fs::exists(dest)) {
        problems.push_back(at + ": no file " + dest.lexically_relative(root).string());
      } else if (!anchor.empty() && dest.extension() == ".md") {
        const auto names = meshtest::docs::anchors(read_text_file(dest.string()));
        if (std::find(names.begin(), names.end(), anchor) == names.end())
          problems.push_back(at + ": no heading with anchor #" + anchor + " in " +
                             dest.lexically_relative(root).string());
      }
    }
  }
  return problems;
}

bool skipped_folder(const fs::path& dir, const fs::path& binary_dir) {
  const std::string name = dir.filename().string();
  return name == ".git" || name == "build" || name.rfind("build-", 0) == 0 ||
         (!binary_dir.empty() && fs::exists(binary_dir) && fs::equivalent(dir, binary_dir));
}

bool looks_binary(const std::string& head) { return head.find('\0') != std::string::npos; }

// "file:line" of every text line under `root` (build folders and .git aside) that holds `needle`
// without naming the MESHTEST_* setting it is the default of.
std::vector<std::string> files_holding(const fs::path& root, const std::string& needle, const fs::path& binary_dir) {
  std::vector<std::string> hits;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && !it->is_symlink() && skipped_folder(it->path(), binary_dir)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->file_size() > (8u << 20)) continue;
    const std::string text = read_text_file(it->path().string());
    if (looks_binary(text.substr(0, 8192)) || text.find(needle) == std::string::npos) continue;
    std::istringstream lines(text);
    int number = 0;
    for (std::string line; std::getline(lines, line);)
      if (++number, line.find(needle) != std::string::npos && line.find("MESHTEST_") == std::string::npos)
        hits.push_back(it->path().lexically_relative(root).string() + ":" + std::to_string(number));
  }
  std::sort(hits.begin(), hits.end());
  return hits;
}

// The pages under docs/ (index.md aside) that docs/index.md does not link.
std::vector<std::string> pages_missing_from_index(const fs::path& root) {
  const fs::path index = root / "docs/index.md";
  std::set<fs::path> linked;
  for (const auto& link : meshtest::docs::links(read_text_file(index.string())))
    if (!is_external(link.target))
      linked.insert(link_destination(index, link.target.substr(0, link.target.find('#'))));
  std::vector<std::string> missing;
  for (const auto& page : doc_pages(root))
    if (page.parent_path() != root && page != index && !linked.count(page.lexically_normal()))
      missing.push_back(page.lexically_relative(root).string());
  return missing;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "  " + l + "\n";
  return s;
}

TEST(DocLinks, EveryRelativeLinkAndAnchorInTheDocsResolves) {
  ASSERT_FALSE(doc_pages(kSource).empty());
  const auto problems = broken_links(kSource);
  EXPECT_TRUE(problems.empty()) << problems.size() << " broken link(s):\n" << joined(problems);
}

TEST(DocLinks, NoFileDependsOnTheFolderBesideTheCheckout) {
  const auto hits = files_holding(kSource, kOutsideFolder, MESHTEST_BINARY_DIR);
  EXPECT_TRUE(hits.empty()) << hits.size() << " line(s) refer to " << kOutsideFolder
                            << ", which a clone does not have:\n" << joined(hits);
}

TEST(DocLinks, TheIndexLinksEveryPageUnderDocs) {
  if (!fs::exists(kSource / "docs/index.md")) GTEST_SKIP() << "docs/index.md does not exist yet";
  const auto missing = pages_missing_from_index(kSource);
  EXPECT_TRUE(missing.empty()) << "docs/index.md does not link:\n" << joined(missing);
}

// GitHub's anchor rule, on the kinds of headings the docs have.
TEST(GithubSlug, FollowsGitHubsRule) {
  using meshtest::docs::github_slug;
  EXPECT_EQ(github_slug("Add a model"), "add-a-model");
  EXPECT_EQ(github_slug("3. Read a failure"), "3-read-a-failure");
  EXPECT_EQ(github_slug("Find the op: `--op-golden`"), "find-the-op---op-golden");
  EXPECT_EQ(github_slug("An ONNX file: `loader.yaml`, no C++"), "an-onnx-file-loaderyaml-no-c");
  EXPECT_EQ(github_slug("Checks — what a green result promises"), "checks--what-a-green-result-promises");
  EXPECT_EQ(github_slug("A [linked](other.md) word_with_underscore"), "a-linked-word_with_underscore");
  EXPECT_EQ(github_slug("Café → naïve"), "café--naïve");
}

TEST(GithubSlug, RepeatedHeadingsGetNumberedAndCodeBlocksHoldNoHeadings) {
  const auto a = meshtest::docs::anchors("# Usage\n```sh\n# not a heading\n```\n## Usage\n<a id=\"custom\"></a>\n");
  EXPECT_EQ(a, (std::vector<std::string>{"usage", "usage-1", "custom"}));
}

// The checks themselves, on a small tree: a good one passes, each deliberate break is seen.
class DocLinksOnATree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fresh_test_dir("meshtest_doclinks_", ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_ / "docs/how-to");
    write("README.md", "See [the guide](docs/how-to/guide.md#step-two-run-it) and [code](docs/x.cpp).\n"
                       "`[not a link](nowhere.md)`\n```\n[not a link](nowhere.md)\n```\n");
    write("docs/how-to/guide.md", "# Guide\n## Step two: run it\nBack to [the top](#guide), [README](../../README.md).\n");
    write("docs/x.cpp", "int main() {}\n");
    write("docs/index.md", "[Guide](how-to/guide.md)\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& rel, const std::string& text) { std::ofstream(root_ / rel) << text; }
  fs::path root_;
};

TEST_F(DocLinksOnATree, AGoodTreeHasNoProblem) {
  EXPECT_TRUE(broken_links(root_).empty()) << joined(broken_links(root_));
  EXPECT_TRUE(pages_missing_from_index(root_).empty());
  EXPECT_TRUE(files_holding(root_, kOutsideFolder, "").empty());
}

TEST_F(DocLinksOnATree, ALinkToAMissingFileIsReportedWithItsLine) {
  write("docs/how-to/guide.md", "# Guide\n\nSee [it](../reference/cli.md).\n");
  EXPECT_EQ(broken_links(root_),
            (std::vector<std::string>{"README.md:1: link 'docs/how-to/guide.md#step-two-run-it': no heading with "
                                      "anchor #step-two-run-it in docs/how-to/guide.md",
                                      "docs/how-to/guide.md:3: link '../reference/cli.md': no file docs/reference/cli.md"}));
}

TEST_F(DocLinksOnATree, AnAnchorNoHeadingHasIsReported) {
  write("README.md", "[x](docs/how-to/guide.md#step-3)\n");
  const auto problems = broken_links(root_);
  ASSERT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_NE(problems[0].find("no heading with anchor #step-3"), std::string::npos) << problems[0];
}

TEST_F(DocLinksOnATree, ALinkOutOfTheCheckoutIsReported) {
  write("README.md", "[design](" + kOutsideFolder + "/DESIGN.md)\n");
  const auto problems = broken_links(root_);
  ASSERT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_NE(problems[0].find("leads outside the checkout"), std::string::npos) << problems[0];
}

TEST_F(DocLinksOnATree, AReferenceToTheFolderBesideTheCheckoutIsFoundOutsideBuildFolders) {
  write("docs/x.cpp", "// data in " + kOutsideFolder + "/testdata\nint main() {}\n// MESHTEST_DATA defaults to " +
                          kOutsideFolder + "/testdata\n");
  fs::create_directories(root_ / "build-asan");
  write("build-asan/CMakeCache.txt", kOutsideFolder + "\n");
  EXPECT_EQ(files_holding(root_, kOutsideFolder, ""), (std::vector<std::string>{"docs/x.cpp:1"}));
}

TEST_F(DocLinksOnATree, APageTheIndexDoesNotLinkIsReported) {
  write("docs/how-to/other.md", "# Other\n");
  EXPECT_EQ(pages_missing_from_index(root_), (std::vector<std::string>{"docs/how-to/other.md"}));
}

}  // namespace
