// The distinct ops of `meshtest ops`, whatever file format they came from:
// one entry per (op, attributes, operand/result types), with every place it
// was seen (its provenance), and the one-op graph that runs it alone or the
// reason there is none (an op the StableHLO importer does not take).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "runner/cli/ops_command.h"

namespace meshtest::runner {

struct SingleOp {
  std::string key;     // op(types){attrs} -> type: what makes two ops the same
  std::string op;      // op name ("softmax", "stablehlo.add")
  std::string shapes;  // "[1,128] x [128,64] -> [1,64]"
  std::string dtype;   // result dtype
  Graph graph;         // the op alone (when `unsupported` is empty)
  std::string unsupported;         // why the op has no graph: "file:line:col: unsupported stablehlo.X: reason"
  std::vector<std::string> seen;   // every occurrence: "file:line:col @function" or "file op #3 matmul"
};

// The distinct ops in first-seen order.
class OpSet {
 public:
  // One occurrence of the op `key` at `site`; `make` builds the entry (all
  // but `seen`) the first time the key comes up.
  void add(const std::string& key, const std::string& site, const std::function<SingleOp()>& make) {
    auto [it, added] = index_.emplace(key, ops_.size());
    if (added) {
      ops_.push_back(make());
      ops_.back().key = key;
    }
    ops_[it->second].seen.push_back(site);
  }
  const std::vector<SingleOp>& ops() const { return ops_; }

 private:
  std::vector<SingleOp> ops_;
  std::map<std::string, size_t> index_;
};

// --only / --skip: an op is named by its full name or, for a dialect op,
// by its name after the dialect (`stablehlo.add` is also `add`).
bool op_selected(const OpsOptions& options, const std::string& name);

}  // namespace meshtest::runner
