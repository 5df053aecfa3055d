// The on-disk compile cache: compiled programs keyed by the graph (everything
// its IR text says, hashed structurally), weights identity (initializers, or a hash of weight data), compile options,
// the target (arch, mesh), the compiler version and the build id of the binary
// holding the compiler (core/build_id.h: any rebuild gets fresh keys), and the active mutant
// (core/mutation.h; none for normal runs). Entries live in
// MESHTEST_CACHE_DIR (default $XDG_CACHE_HOME/meshtest or ~/.cache/meshtest),
// one file per key, written atomically. A corrupted or foreign entry is
// ignored with a warning and replaced by the next store.
#pragma once

#include <optional>
#include <string>

#include "compiler/compile.h"

namespace meshtest::compiler {

// Hex key of compiling `graph` with `options` for `target` ("n150 1x1").
std::string compile_cache_key(const Graph& graph, const CompileOptions& options, const std::string& target);

class CompileCache {
 public:
  // `dir` empty: the cache is disabled (lookups miss, stores do nothing).
  explicit CompileCache(std::string dir) : dir_(std::move(dir)) {}
  // MESHTEST_CACHE_DIR, else $XDG_CACHE_HOME/meshtest, else ~/.cache/meshtest.
  static std::string default_dir();

  bool enabled() const { return !dir_.empty(); }
  const std::string& dir() const { return dir_; }
  std::string entry_path(const std::string& key) const;

  // The cached result for `key`, or nullopt. A corrupted or foreign entry
  // gives nullopt and a message in `warning`.
  std::optional<CompileResult> load(const std::string& key, std::string& warning) const;
  // Writes the entry (temporary file + rename). Failures are returned as a
  // warning message ("" on success): the cache never fails a compile.
  std::string store(const std::string& key, const CompileResult& result) const;

 private:
  std::string dir_;
};

}  // namespace meshtest::compiler
