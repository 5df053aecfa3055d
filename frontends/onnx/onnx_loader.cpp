// loader.yaml parsing (every key checked, errors at file:line:column) and the
// ModelLoader it describes, over an ONNX model or a StableHLO program.
#include "frontends/onnx/onnx_loader.h"

#include <yaml-cpp/yaml.h>

#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "core/error.h"
#include "core/rng.h"
#include "frontends/onnx/loader_stablehlo.h"
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
  bool dtype_given = false;
  bool shape_from_program = false;  // StableHLO: no shape given, the program's (and its dtype unless given)
};

struct Variant {
  std::string onnx;       // the model file: an ONNX model, or
  std::string stablehlo;  // a StableHLO program (inputs arg0, arg1, ... or their labels)
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

  // `shape_optional`: a StableHLO program's input, whose type the program declares.
  InputSpec input(const YAML::Node& n, const std::string& name, bool shape_optional) const {
    keys(n, {"file", "shape", "dtype", "distribution", "mean", "std", "low", "high", "value", "seed", "constant"}, "input '" + name + "'");
    InputSpec s;
    if (n["constant"]) s.constant = scalar<bool>(n["constant"], "constant");
    if (n["file"]) s.file = relative(n["file"], "file");
    if (n["shape"]) s.shape = list<int64_t>(n["shape"], "shape");
    if (n["dtype"]) {
      s.dtype_given = true;
      try {
        s.dtype = parse_dtype(scalar<std::string>(n["dtype"], "dtype"));
      } catch (const Error& e) {
        fail(n["dtype"], e.what());
      }
    }
    s.shape_from_program = shape_optional && s.file.empty() && !n["shape"];
    if (s.file.empty() && !n["shape"] && !shape_optional) fail(n, "input '" + name + "' needs a shape (or a file)");
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
    keys(n, {"onnx", "stablehlo", "dims", "inputs", "info", "training", "mesh", "shard_spec"},
         "variant '" + name + "'");
    Variant v;
    v.info = defaults;
    model_file(n, name, v);
    if (n["dims"] && !v.stablehlo.empty()) {
      fail(n["dims"], "dims: pins an ONNX model's dimensions; a StableHLO program's shapes are static");
    }
    if (n["dims"]) {
      if (!n["dims"].IsMap()) fail(n["dims"], "dims must map dimension names to sizes");
      for (const auto& kv : n["dims"]) v.dims[kv.first.as<std::string>()] = scalar<int64_t>(kv.second, "dims entry");
    }
    if (n["inputs"]) {
      if (!n["inputs"].IsMap()) fail(n["inputs"], "inputs must map graph input names to their specs");
      for (const auto& kv : n["inputs"]) {
        const std::string in = kv.first.as<std::string>();
        v.inputs[in] = input(kv.second, in, !v.stablehlo.empty());
        if (v.inputs[in].constant && !v.stablehlo.empty()) {
          fail(kv.second["constant"], "constant: folds an ONNX model's input; a StableHLO program has its constants");
        }
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
      if (!n["shard_spec"].IsMap()) {
        fail(n["shard_spec"], "shard_spec must map initializer (StableHLO: input) names to partition specs");
      }
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
  // The variant's model: `onnx: m.onnx` or `stablehlo: f.mlir` (which must
  // exist: its name is checked here, the file read by load_model only).
  void model_file(const YAML::Node& n, const std::string& name, Variant& v) const {
    if (n["onnx"] && n["stablehlo"]) fail(n["stablehlo"], "variant '" + name + "' names both onnx: and stablehlo:");
    if (n["onnx"]) {
      v.onnx = relative(n["onnx"], "onnx");
      return;
    }
    if (!n["stablehlo"]) {
      fail(n, "variant '" + name + "' needs onnx: or stablehlo: (the model file, relative to loader.yaml)");
    }
    v.stablehlo = relative(n["stablehlo"], "stablehlo");
    if (!fs::is_regular_file(fs::path(path_).parent_path() / v.stablehlo)) {
      fail(n["stablehlo"], "stablehlo file '" + v.stablehlo + "' does not exist");
    }
    v.info.framework = "stablehlo";
    if (v.info.source == "onnx") v.info.source = "stablehlo";
  }

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
    if (!v.stablehlo.empty()) {
      Graph graph = program(variant).graph;
      for (const Param* p : graph.inputs()) program_input(v, graph, *p, variant);  // the declared types agree
      return {std::move(graph)};
    }
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
    const Variant& v = get(variant);
    if (!v.stablehlo.empty()) {
      const Graph& graph = program(variant).graph;
      for (const Param* p : graph.inputs()) inputs[p->name] = input(program_input(v, graph, *p, variant), options);
      return inputs;
    }
    for (const auto& [name, spec] : v.inputs) {
      if (!spec.constant) inputs[name] = input(spec, options);
    }
    return inputs;
  }

  std::optional<sdk::MeshConfig> mesh_config(std::string_view variant, int num_devices) const override {
    std::optional<sdk::MeshConfig> mesh = get(variant).mesh;
    if (!mesh && !get(variant).stablehlo.empty() && !program(variant).mesh.shape.empty()) mesh = program(variant).mesh;
    if (!mesh) return std::nullopt;
    int64_t n = 1;
    for (int64_t d : mesh->shape) n *= d;
    return n == num_devices ? mesh : std::nullopt;
  }
  std::optional<sdk::ShardSpec> shard_spec(std::string_view variant, const sdk::Model&) const override {
    const Variant& v = get(variant);
    if (v.shard_spec || v.stablehlo.empty() || program(variant).shard_spec.empty()) return v.shard_spec;
    return program(variant).shard_spec;  // the program's own mhlo.sharding
  }
  sdk::TrainingSpec training(std::string_view variant) const override { return get(variant).training; }

 private:
  const Variant& get(std::string_view variant) const {
    auto it = variants_.find(std::string(variant));
    if (it == variants_.end()) throw Error("no variant '" + std::string(variant) + "' in " + dir_ + "/loader.yaml");
    return it->second;
  }
  std::string path(const std::string& relative) const { return (fs::path(dir_) / relative).string(); }

  // A StableHLO variant's program, imported once.
  const LoaderProgram& program(std::string_view variant) const {
    const std::lock_guard<std::mutex> lock(programs_mutex_);
    std::shared_ptr<const LoaderProgram>& slot = programs_[std::string(variant)];
    if (!slot) {
      const Variant& v = get(variant);
      std::set<std::string> names;
      for (const auto& [name, spec] : v.inputs) names.insert(name);
      slot = std::make_shared<const LoaderProgram>(import_loader_program(path(v.stablehlo), names));
    }
    return *slot;
  }
  // A StableHLO program input's spec: loader.yaml's, with the program's shape
  // (and dtype, unless given) when it gives none; an input loader.yaml does
  // not list is random by the program's type. A shape or dtype loader.yaml
  // gives must be the program's.
  InputSpec program_input(const Variant& v, const Graph& graph, const Param& p, std::string_view variant) const {
    const TensorType& t = graph.type(p.value);
    const auto listed = v.inputs.find(p.name);
    InputSpec s;
    if (listed != v.inputs.end()) {
      s = listed->second;
    } else {
      s.shape_from_program = true;
      s.seed = hash_seed(std::string(variant) + "/" + p.name);
    }
    if (s.shape_from_program) {
      s.shape = t.shape;
      if (!s.dtype_given) s.dtype = t.dtype;
      if (is_integer(s.dtype) && s.distribution == "normal") {
        s.distribution = "uniform";
        s.a = 0.0;
        s.b = 2.0;
      }
    } else if (s.file.empty() && (s.shape != t.shape || s.dtype != t.dtype)) {
      throw Error(path(v.stablehlo) + ": input '" + p.name + "' is " + std::string(dtype_name(t.dtype)) +
                  shape_to_string(t.shape) + " in the program, loader.yaml gives " +
                  std::string(dtype_name(s.dtype)) + shape_to_string(s.shape));
    }
    return s;
  }
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
  mutable std::mutex programs_mutex_;
  mutable std::map<std::string, std::shared_ptr<const LoaderProgram>> programs_;
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
