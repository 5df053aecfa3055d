// The `*.mtir` frontend: an IR text file as a loader (parse, weights and
// inputs from the tensor file beside it, or random inputs).
#include "frontends/mtir/mtir_frontend.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "core/ir_text.h"
#include "core/rng.h"
#include "core/safetensors.h"

namespace meshtest::frontends {

namespace {

namespace fs = std::filesystem;

// How many distinct ids an integer input may take: the rows of the smallest
// embedding table it indexes, else 2.
int64_t id_bound(const Graph& graph, ValueId input) {
  int64_t bound = std::numeric_limits<int64_t>::max();
  for (const Op& op : graph.ops) {
    if (op.kind != OpKind::Embedding || op.inputs.size() < 2 || op.inputs[0] != input) continue;
    const Shape& table = graph.type(op.inputs[1]).shape;
    if (!table.empty()) bound = std::min(bound, table[0]);
  }
  return bound == std::numeric_limits<int64_t>::max() ? 2 : std::max<int64_t>(bound, 1);
}

// Whether a float input feeds an op defined only for positive values (log,
// sqrt, rsqrt): such inputs are drawn from U(0.5, 2) instead of N(0, 1).
bool needs_positive(const Graph& graph, ValueId input) {
  for (const Op& op : graph.ops) {
    const bool positive_domain = op.kind == OpKind::Log || op.kind == OpKind::Sqrt || op.kind == OpKind::Rsqrt;
    if (positive_domain && std::find(op.inputs.begin(), op.inputs.end(), input) != op.inputs.end()) return true;
  }
  return false;
}

// The range [low, high) integer inputs are drawn from: ids of an embedding
// in [0, rows); other i32/i64/bool inputs in [0, 2); the dtypes added for
// StableHLO (i8, i16, u8 .. u64) small values of both signs where the type
// has them, [-16, 16) or [0, 32), so arithmetic, shifts and compares see
// varied operands without overflowing.
std::pair<int64_t, int64_t> integer_range(DType dtype, int64_t id_bound, bool is_id) {
  if (is_id || dtype == DType::I32 || dtype == DType::I64 || dtype == DType::Bool) return {0, id_bound};
  return is_signed_integer(dtype) ? std::pair<int64_t, int64_t>{-16, 16} : std::pair<int64_t, int64_t>{0, 32};
}

bool is_embedding_ids(const Graph& graph, ValueId input) {
  return std::any_of(graph.ops.begin(), graph.ops.end(), [&](const Op& op) {
    return op.kind == OpKind::Embedding && !op.inputs.empty() && op.inputs[0] == input;
  });
}

Tensor random_integers(const TensorType& type, std::pair<int64_t, int64_t> range, uint64_t seed) {
  Tensor ids(DType::I64, type.shape);
  Rng rng(seed);
  int64_t* p = ids.data<int64_t>();
  for (int64_t i = 0; i < ids.numel(); ++i) p[i] = rng.uniform_int(range.first, range.second);
  return ids.to(type.dtype);
}

class MtirLoader : public sdk::ModelLoader {
 public:
  explicit MtirLoader(std::string path) : path_(std::move(path)) {
    std::ifstream in(path_);
    if (!in) throw Error(path_ + ": cannot read");
    std::stringstream text;
    text << in.rdbuf();
    text_ = text.str();
    parse_graph(text_, path_);  // a file that does not parse is a loader failure at discovery
    const fs::path tensors = fs::path(path_).replace_extension(".safetensors");
    if (fs::exists(tensors)) tensors_path_ = tensors.string();
  }

  std::vector<std::string> variants() const override { return {}; }

  sdk::ModelInfo info(std::string_view) const override {
    sdk::ModelInfo info;
    info.model = fs::path(path_).stem().string();
    info.task = "ir_test";
    info.source = "mtir";
    info.framework = "mtir";
    return info;
  }

  sdk::Model load_model(std::string_view, const sdk::LoadOptions&) const override {
    sdk::Model model{parse_graph(text_, path_)};
    Graph& graph = model.graph;
    for (Param& p : graph.params) {
      if (p.kind != ParamKind::Weight || p.init || p.data.defined()) continue;
      const std::map<std::string, Tensor>& file = tensors();
      const auto it = file.find(p.name);
      if (it == file.end()) {
        throw Error(path_ + ": weight '" + p.name + "' is declared '= data' but " +
                    (tensors_path_.empty() ? "there is no tensor file beside it"
                                           : tensors_path_ + " does not hold it"));
      }
      const TensorType& t = graph.type(p.value);
      p.data = fit_declared(tensors_path_, "weight", p.name, it->second, t.dtype, t.shape);
    }
    return model;
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    const Graph graph = load_model(variant, options).graph;
    sdk::Inputs inputs = random_inputs(graph, hash_seed(fs::path(path_).filename().string()));
    const std::map<std::string, Tensor>& file = tensors();
    for (const Param* p : graph.inputs()) {
      const auto it = file.find(p->name);
      if (it == file.end()) continue;
      const TensorType& t = graph.type(p->value);
      inputs[p->name] = fit_declared(tensors_path_, "input", p->name, it->second, t.dtype, t.shape);
    }
    return inputs;
  }

 private:
  const std::map<std::string, Tensor>& tensors() const {
    static const std::map<std::string, Tensor> kNone;
    if (tensors_path_.empty()) return kNone;
    if (!tensors_) tensors_ = std::make_shared<std::map<std::string, Tensor>>(read_safetensors(tensors_path_));
    return *tensors_;
  }

  std::string path_;
  std::string text_;
  std::string tensors_path_;
  mutable std::shared_ptr<std::map<std::string, Tensor>> tensors_;
};

}  // namespace

sdk::Inputs random_inputs(const Graph& graph, uint64_t seed) {
  sdk::Inputs inputs;
  for (const Param* p : graph.inputs()) {
    const TensorType& t = graph.type(p->value);
    const uint64_t s = mix_seed(seed, hash_seed(p->name));
    if (!is_floating(t.dtype)) {
      const auto range = integer_range(t.dtype, id_bound(graph, p->value), is_embedding_ids(graph, p->value));
      inputs[p->name] = random_integers(t, range, s);
    } else {
      const Tensor x = needs_positive(graph, p->value) ? random_uniform(t.shape, s, 0.5f, 2.0f) : random_normal(t.shape, s);
      inputs[p->name] = x.to(t.dtype);
    }
  }
  return inputs;
}

Frontend mtir_frontend() {
  return {"mtir", kMtirFilePattern, [](const std::string& path) { return std::make_shared<MtirLoader>(path); }};
}

}  // namespace meshtest::frontends
