// git through the shell (see git_revision.h).
#include "runner/cli/git_revision.h"

#include <algorithm>
#include <sstream>

#include "core/error.h"
#include "runner/pipeline/shell_command.h"

namespace meshtest::runner {

namespace {

namespace fs = std::filesystem;

// `git -C dir ARGS`, stderr folded into the output so a failure says why.
CommandResult run_git(const fs::path& dir, const std::string& args) {
  return run_shell("git -C " + shell_quote(dir.string()) + " " + args + " 2>&1");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

std::string without_trailing_newline(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

GitRepository GitRepository::containing(const fs::path& path) {
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(path, ec);
  if (ec) dir = path;
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  const CommandResult r = run_git(dir, "rev-parse --show-toplevel");
  if (!r.ok) {
    throw Error("'" + path.string() + "' is not in a git repository (git: " + without_trailing_newline(r.output) +
                ")");
  }
  return GitRepository(fs::weakly_canonical(without_trailing_newline(r.output)));
}

std::string GitRepository::relative(const fs::path& path) const {
  const fs::path rel = fs::weakly_canonical(path).lexically_relative(top_);
  const std::string text = rel.generic_string();
  if (text == ".") return "";
  if (rel.empty() || text.rfind("..", 0) == 0) {
    throw Error("'" + path.string() + "' is outside the git repository " + top_.string());
  }
  return text;
}

std::string GitRepository::git(const std::string& args) const {
  const CommandResult r = run_git(top_, args);
  if (!r.ok) throw Error("git " + args + ": " + without_trailing_newline(r.output));
  return r.output;
}

void GitRepository::check_revision(const std::string& revision) const {
  if (!run_git(top_, "rev-parse --verify --quiet " + shell_quote(revision + "^{commit}")).ok) {
    throw Error("'" + revision + "' names no commit of " + top_.string() +
                " (a shallow clone may lack it: fetch it first, e.g. git fetch origin main)");
  }
}

std::vector<std::string> GitRepository::files_at(const std::string& revision, const std::string& relative_path) const {
  const std::string where = relative_path.empty() ? "." : relative_path;
  std::vector<std::string> files =
      lines_of(git("ls-tree -r --name-only --full-tree " + shell_quote(revision) + " -- " + shell_quote(where)));
  std::sort(files.begin(), files.end());
  return files;
}

std::string GitRepository::show(const std::string& revision, const std::string& relative_file) const {
  return git("show " + shell_quote(revision + ":" + relative_file));
}

std::vector<std::string> GitRepository::changed_since(const std::string& revision,
                                                      const std::string& relative_path) const {
  const std::string where = shell_quote(relative_path.empty() ? "." : relative_path);
  std::vector<std::string> paths = lines_of(git("diff --name-only " + shell_quote(revision) + " -- " + where));
  for (std::string& untracked : lines_of(git("ls-files --others --exclude-standard --full-name -- " + where))) {
    paths.push_back(std::move(untracked));
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

}  // namespace meshtest::runner
