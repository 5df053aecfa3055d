// loader.yaml parsing (every key checked, errors at file:line:column) and the
// ModelLoader it describes.
#include "frontends/onnx/onnx_loader.h"

#include <yaml-cpp/yaml.h>

#include <cstring>
#include <filesystem>
#include <set>

#include "core/error.h"
#include "core/rng.h"
#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/onnx_tensor.h"

namespace meshtest::frontends::onnx_import {

namespace {

namespace fs = std::filesystem;

struct InputSpec {
  std::string file;  // a TensorProto file relative to the loader, or:
  Shape shape;
  DType dtype = DType::F32;
  std::string distribution = "normal";  // normal | uniform | constant
  double a = 0.0, b = 1.0;              // mean/std, low/high, value
  uint64_t seed = 0;
  bool constant = false;  // a fixed value (shape, axes, scales): folded into the graph, not fed
};

struct Variant {
  std::string onnx;
  std::map<std::string, int64_t> dims;
  std::map<std::string, InputSpec> inputs;
  sdk::ModelInfo info;
  sdk::TrainingSpec training;
  std::optional<sdk::MeshConfig> mesh;
  std::optional<sdk::ShardSpec> shard_spec;
};

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}
  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const {
    const YAML::Mark m = at.Mark();
    throw ParseError(path_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": " + what);
  }
  void keys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& where) const {
    if (!map.IsMap()) fail(map, where + " must be a mapping");
    for (const auto& kv : map) {
      const std::string key = kv.first.as<std::string>();
      if (allowed.count(key) == 0) {
        std::string list;
        for (const std::string& k : allowed) list += (list.empty() ? "" : ", ") + k;
        fail(kv.first, "unknown key '" + key + "' in " + where + " (allowed: " + list + ")");
      }
    }
  }
  template <class T> T scalar(const YAML::Node& n, const std::string& what) const {
    try {
      if (!n.IsScalar()) fail(n, what + " must be a scalar");
      return n.as<T>();
    } catch (const YAML::Exception&) {
      fail(n, what + " has the wrong type");
    }
  }
  template <class T> std::vector<T> list(const YAML::Node& n, const std::string& what) const {
    if (!n.IsSequence()) fail(n, what + " must be a list");
    std::vector<T> out;
    for (const auto& e : n) out.push_back(scalar<T>(e, what + " entry"));
    return out;
  }
  // A path relative to the loader that stays inside its folder.
  std::string relative(const YAML::Node& n, const std::string& what) const {
    const std::string p = scalar<std::string>(n, what);
    const fs::path rel(p);
    bool escapes = p.empty() || rel.is_absolute();
    for (const fs::path& part : rel) escapes = escapes || part == "..";
    if (escapes) fail(n, what + " '" + p + "' must be a relative path inside the loader's folder");
    return p;
  }

  InputSpec input(const YAML::Node& n, const std::string& name) const {
    keys(n, {"file", "shape", "dtype", "distribution", "mean", "std", "low", "high", "value", "seed", "constant"}, "input '" + name + "'");
    InputSpec s;
    if (n["constant"]) s.constant = scalar<bool>(n["constant"], "constant");
    if (n["file"]) s.file = relative(n["file"], "file");
    if (n["shape"]) s.shape = list<int64_t>(n["shape"], "shape");
    if (n["dtype"]) {
      try {
        s.dtype = parse_dtype(scalar<std::string>(n["dtype"], "dtype"));
      } catch (const Error& e) {
        fail(n["dtype"], e.what());
      }
    }
    if (s.file.empty() && !n["shape"]) fail(n, "input '" + name + "' needs a shape (or a file)");
    if (n["distribution"]) {
      s.distribution = scalar<std::string>(n["distribution"], "distribution");
      if (s.distribution != "normal" && s.distribution != "uniform" && s.distribution != "constant") {
        fail(n["distribution"], "distribution must be normal, uniform or constant");
      }
    }
    const char* first = s.distribution == "normal" ? "mean" : s.distribution == "uniform" ? "low" : "value";
    const char* second = s.distribution == "normal" ? "std" : "high";
    s.b = s.distribution == "uniform" && is_integer(s.dtype) ? 2.0 : 1.0;
    if (n[first]) s.a = scalar<double>(n[first], first);
    if (n[second]) s.b = scalar<double>(n[second], second);
    if (n["seed"]) s.seed = scalar<uint64_t>(n["seed"], "seed");
    return s;
  }

  void info(const YAML::Node& n, sdk::ModelInfo& info) const {
    keys(n, {"model", "group", "task", "source"}, "info");
    if (n["model"]) info.model = scalar<std::string>(n["model"], "model");
    if (n["group"]) {
      info.group = scalar<std::string>(n["group"], "group");
      static const std::set<std::string> groups{"red", "generality", "priority", "vulcan"};
      if (groups.count(info.group) == 0) fail(n["group"], "group must be red, generality, priority or vulcan");
    }
    if (n["task"]) info.task = scalar<std::string>(n["task"], "task");
    if (n["source"]) info.source = scalar<std::string>(n["source"], "source");
  }

  Variant variant(const YAML::Node& n, const std::string& name, const sdk::ModelInfo& defaults) const {
    keys(n, {"onnx", "dims", "inputs", "info", "training", "mesh", "shard_spec"}, "variant '" + name + "'");
    Variant v;
    v.info = defaults;
    if (!n["onnx"]) fail(n, "variant '" + name + "' needs onnx: (the model file, relative to loader.yaml)");
    v.onnx = relative(n["onnx"], "onnx");
    if (n["dims"]) {
      if (!n["dims"].IsMap()) fail(n["dims"], "dims must map dimension names to sizes");
      for (const auto& kv : n["dims"]) v.dims[kv.first.as<std::string>()] = scalar<int64_t>(kv.second, "dims entry");
    }
    if (n["inputs"]) {
      if (!n["inputs"].IsMap()) fail(n["inputs"], "inputs must map graph input names to their specs");
      for (const auto& kv : n["inputs"]) {
        const std::string in = kv.first.as<std::string>();
        v.inputs[in] = input(kv.second, in);
      }
    }
    if (n["info"]) info(n["info"], v.info);
    if (n["training"]) {
      keys(n["training"], {"output"}, "training");
      if (n["training"]["output"]) v.training.output = scalar<std::string>(n["training"]["output"], "training output");
    }
    if (n["mesh"]) {
      keys(n["mesh"], {"shape", "axis_names"}, "mesh");
      if (!n["mesh"]["shape"] || !n["mesh"]["axis_names"]) fail(n["mesh"], "mesh needs shape and axis_names");
      sdk::MeshConfig mesh{list<int64_t>(n["mesh"]["shape"], "mesh shape"),
                           list<std::string>(n["mesh"]["axis_names"], "mesh axis_names")};
      if (mesh.shape.size() != mesh.axis_names.size()) fail(n["mesh"], "mesh shape and axis_names differ in length");
      v.mesh = mesh;
    }
    if (n["shard_spec"]) {
      if (!n["shard_spec"].IsMap()) fail(n["shard_spec"], "shard_spec must map initializer names to partition specs");
      sdk::ShardSpec spec;
      for (const auto& kv : n["shard_spec"]) {
        if (!kv.second.IsSequence()) fail(kv.second, "a partition spec is a list (one entry per dim)");
        sdk::PartitionSpec p;
        for (const auto& dim : kv.second) {
          if (dim.IsNull()) p.emplace_back();
          else if (dim.IsScalar()) p.push_back({dim.as<std::string>()});
          else p.push_back(list<std::string>(dim, "mesh axes"));
        }
        spec[kv.first.as<std::string>()] = p;
      }
      v.shard_spec = spec;
    }
    return v;
  }

 private:
  std::string path_;
};

Tensor generate(const InputSpec& s) {
  if (s.distribution == "constant") return filled(s.shape, static_cast<float>(s.a)).to(s.dtype);
  if (is_integer(s.dtype)) {
    if (s.distribution != "uniform") throw Error("integer inputs take distribution: uniform (low, high)");
    return random_int(s.shape, s.seed, static_cast<int64_t>(s.a), static_cast<int64_t>(s.b)).to(s.dtype);
  }
  const Tensor f = s.distribution == "uniform"
                       ? random_uniform(s.shape, s.seed, static_cast<float>(s.a), static_cast<float>(s.b))
                       : random_normal(s.shape, s.seed, static_cast<float>(s.a), static_cast<float>(s.b));
  return f.to(s.dtype);
}

// `t` with dim 0 (the batch) of size `batch`: its samples repeated.
Tensor with_batch(const Tensor& t, int64_t batch) {
  if (t.rank() == 0 || t.dim(0) == batch) return t;
  if (t.dim(0) == 0 || batch % t.dim(0) != 0) {
    throw Error("an input of batch " + std::to_string(t.rank() ? t.dim(0) : 0) + " cannot fill batch_size " + std::to_string(batch));
  }
  Shape shape = t.shape();
  shape[0] = batch;
  Tensor out(t.dtype(), shape);
  const size_t bytes = t.nbytes();
  for (int64_t k = 0; k < batch / t.dim(0); ++k) {
    std::memcpy(static_cast<char*>(out.raw_data()) + static_cast<size_t>(k) * bytes, t.raw_data(), bytes);
  }
  return out;
}

class OnnxLoader : public sdk::ModelLoader {
 public:
  OnnxLoader(std::string dir, std::vector<std::string> order, std::map<std::string, Variant> variants)
      : dir_(std::move(dir)), order_(std::move(order)), variants_(std::move(variants)) {}

  std::vector<std::string> variants() const override { return order_; }
  sdk::ModelInfo info(std::string_view variant) const override { return get(variant).info; }

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    check(options);
    const Variant& v = get(variant);
    ImportOptions import;
    import.graph_name = v.info.model + (variant.empty() ? "" : "_" + std::string(variant));
    import.dims = v.dims;
    for (const auto& [name, spec] : v.inputs) {
      if (spec.constant) import.constant_inputs[name] = input(spec, {});
      else import.input_shapes[name] = input(spec, options).shape();
    }
    Graph graph = import_onnx_file(path(v.onnx), import);
    for (const Param* p : graph.inputs()) {
      if (v.inputs.count(p->name) == 0) throw Error(path(v.onnx) + ": graph input '" + p->name + "' has no entry under inputs: in loader.yaml");
    }
    return {std::move(graph)};
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    check(options);
    sdk::Inputs inputs;
    for (const auto& [name, spec] : get(variant).inputs) {
      if (!spec.constant) inputs[name] = input(spec, options);
    }
    return inputs;
  }

  std::optional<sdk::MeshConfig> mesh_config(std::string_view variant, int num_devices) const override {
    const auto& mesh = get(variant).mesh;
    if (!mesh) return std::nullopt;
    int64_t n = 1;
    for (int64_t d : mesh->shape) n *= d;
    return n == num_devices ? mesh : std::nullopt;
  }
  std::optional<sdk::ShardSpec> shard_spec(std::string_view variant, const sdk::Model&) const override {
    return get(variant).shard_spec;
  }
  sdk::TrainingSpec training(std::string_view variant) const override { return get(variant).training; }

 private:
  const Variant& get(std::string_view variant) const {
    auto it = variants_.find(std::string(variant));
    if (it == variants_.end()) throw Error("no variant '" + std::string(variant) + "' in " + dir_ + "/loader.yaml");
    return it->second;
  }
  std::string path(const std::string& relative) const { return (fs::path(dir_) / relative).string(); }
  // An input's tensor; batch_size (training, data parallel) sets every input's dim 0.
  Tensor input(const InputSpec& s, const sdk::LoadOptions& options) const {
    if (s.file.empty() && options.batch_size && !s.shape.empty()) {
      InputSpec resized = s;
      resized.shape[0] = *options.batch_size;
      return generate(resized);
    }
    const Tensor t = s.file.empty() ? generate(s) : read_tensor_file(path(s.file));
    return options.batch_size ? with_batch(t, *options.batch_size) : t;
  }
  static void check(const sdk::LoadOptions& options) {
    if (options.dtype_override && *options.dtype_override != DType::F32) {
      throw Error("the ONNX frontend runs models in the dtypes of their file; dtype_override " +
                  std::string(dtype_name(*options.dtype_override)) + " is not supported");
    }
    if (options.seq_len || options.num_layers) {
      throw Error("the ONNX frontend takes sequence lengths and depth from loader.yaml, not from options");
    }
  }

  std::string dir_;
  std::vector<std::string> order_;
  std::map<std::string, Variant> variants_;
};

}  // namespace

std::shared_ptr<sdk::ModelLoader> load_onnx_loader(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::ParserException& e) {
    throw ParseError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const YAML::Exception& e) {
    throw ParseError(path + ": " + e.what());
  }
  const Reader r(path);
  const fs::path dir = fs::path(path).parent_path();
  sdk::ModelInfo defaults;
  defaults.framework = "onnx";
  defaults.source = "onnx";
  defaults.model = dir.has_parent_path() ? dir.parent_path().filename().string() : "onnx";
  if (!root.IsMap()) r.fail(root, "loader.yaml must be a mapping");
  std::vector<std::string> order;
  std::map<std::string, Variant> variants;
  if (root["variants"]) {
    r.keys(root, {"info", "variants"}, "loader.yaml");
    if (root["info"]) r.info(root["info"], defaults);
    if (!root["variants"].IsMap() || root["variants"].size() == 0) r.fail(root["variants"], "variants must be a non-empty mapping");
    for (const auto& kv : root["variants"]) {
      const std::string name = kv.first.as<std::string>();
      order.push_back(name);
      variants[name] = r.variant(kv.second, name, defaults);
    }
  } else {
    variants[""] = r.variant(root, "", defaults);  // one unnamed variant
  }
  return std::make_shared<OnnxLoader>(dir.string(), std::move(order), std::move(variants));
}

}  // namespace meshtest::frontends::onnx_import
