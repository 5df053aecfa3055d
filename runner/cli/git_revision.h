// Reading a git repository for `meshtest changed`: which repository a folder
// is in, the files under a path at a revision and their text, and the paths
// that differ between a revision and the working tree. Runs the `git` on PATH
// (runner/pipeline/shell_command.h); every failure is a meshtest::Error with
// git's own message.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace meshtest::runner {

class GitRepository {
 public:
  // The repository that holds `path` (a file or folder); throws when none does.
  static GitRepository containing(const std::filesystem::path& path);

  const std::filesystem::path& top() const { return top_; }
  // `path` relative to top() ("" for top itself); throws when it lies outside.
  std::string relative(const std::filesystem::path& path) const;
  // Throws unless `revision` names a commit ("origin/main", "HEAD~1", a hash).
  void check_revision(const std::string& revision) const;
  // The files under `relative_path` (a file or folder) at `revision`, relative to top(), sorted.
  std::vector<std::string> files_at(const std::string& revision, const std::string& relative_path) const;
  // The text of `relative_file` at `revision`.
  std::string show(const std::string& revision, const std::string& relative_file) const;
  // Tracked paths under `relative_path` that differ between `revision` and
  // the working tree, and untracked (not ignored) files there; relative to top(), sorted.
  std::vector<std::string> changed_since(const std::string& revision, const std::string& relative_path) const;

 private:
  explicit GitRepository(std::filesystem::path top) : top_(std::move(top)) {}
  // `git -C top ARGS` (ARGS already shell-quoted); its stdout, or an Error with its stderr.
  std::string git(const std::string& args) const;

  std::filesystem::path top_;
};

}  // namespace meshtest::runner
