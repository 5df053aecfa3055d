// The import driver: parse, opset, graph inputs with pinned dimensions,
// initializers, one converter per node (or folding when its operands are
// known), outputs.
#include "frontends/onnx/onnx_importer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <filesystem>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>

#include "frontends/onnx/node_context.h"
#include "frontends/onnx/onnx_tensor.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::frontends::onnx_import {

namespace {

namespace fs = std::filesystem;

// Operands up to this many elements in all are folded at import time.
constexpr int64_t kFoldLimit = int64_t{1} << 16;

int default_opset(const onnx::ModelProto& model) {
  int opset = -1;
  for (const auto& o : model.opset_import()) {
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = static_cast<int>(o.version());
  }
  if (opset < 0) throw Error("the model imports no default-domain (ai.onnx) opset");
  if (opset < kMinOpset || opset > kMaxOpset) {
    throw Error("opset " + std::to_string(opset) + " is outside what the importer reads (" + std::to_string(kMinOpset) +
                "-" + std::to_string(kMaxOpset) + ")");
  }
  return opset;
}

Shape input_shape(const onnx::ValueInfoProto& input, const ImportOptions& options) {
  const auto& tt = input.type().tensor_type();
  const auto pinned = options.input_shapes.find(input.name());
  if (!tt.has_shape()) {
    if (pinned != options.input_shapes.end()) return pinned->second;
    throw Error("input '" + input.name() + "' has no shape in the model: give its shape in loader.yaml");
  }
  const int rank = tt.shape().dim_size();
  if (pinned != options.input_shapes.end() && static_cast<int>(pinned->second.size()) != rank) {
    throw Error("input '" + input.name() + "' has rank " + std::to_string(rank) + " in the model, loader.yaml gives " +
                shape_to_string(pinned->second));
  }
  Shape shape;
  for (int i = 0; i < rank; ++i) {
    const auto& d = tt.shape().dim(i);
    const bool fixed = d.has_dim_value() && d.dim_value() >= 0;
    int64_t size = fixed ? d.dim_value() : -1;
    if (pinned != options.input_shapes.end()) {
      const int64_t want = pinned->second[static_cast<size_t>(i)];
      if (fixed && want != size) {
        throw Error("input '" + input.name() + "' dimension " + std::to_string(i) + " is " + std::to_string(size) +
                    " in the model, loader.yaml gives " + std::to_string(want));
      }
      size = want;
    } else if (!fixed && d.has_dim_param() && options.dims.count(d.dim_param()) != 0) {
      size = options.dims.at(d.dim_param());
    }
    if (size < 0) {
      throw Error("input '" + input.name() + "' dimension " + std::to_string(i) +
                  (d.has_dim_param() ? " ('" + d.dim_param() + "')" : std::string()) +
                  " is dynamic: pin it in loader.yaml (dims: or the input's shape:)");
    }
    shape.push_back(size);
  }
  return shape;
}

std::string describe(const onnx::NodeProto& node, int opset) {
  return "ONNX node '" + node.name() + "' (" + node.op_type() + ", opset " + std::to_string(opset) + ")";
}

void check_attributes(const NodeContext& ctx) {
  const std::vector<std::string> unread = ctx.unread_attributes();
  if (!unread.empty()) ctx.unsupported("attribute '" + unread.front() + "' is not supported");
}

// Runs the converter of `node` on its known operands through the reference;
// the results become known data in `env`. False (and `env` unchanged) when
// the results are too large to hold at import time.
bool fold(const onnx::NodeProto& node, int opset, const Converter& convert, Env& env) {
  GraphBuilder scratch("fold");
  Env scratch_env(scratch);
  for (const std::string& name : node.input()) {
    if (!name.empty()) scratch_env.slots[name] = Slot{kNoValue, env.slot(name).data, false};
  }
  NodeContext ctx(node, opset, scratch_env);
  convert(ctx);
  check_attributes(ctx);
  bool computed = false;
  for (size_t i = 0; i < ctx.results().size(); ++i) {
    if (!ctx.output_used(i)) continue;
    if (!ctx.results()[i]) ctx.unsupported("output " + std::to_string(i) + " is not supported");
    if (!ctx.results()[i]->data) {
      scratch.output("r" + std::to_string(i), ctx.results()[i]->id);
      computed = true;
    }
  }
  std::vector<Tensor> values;
  if (computed) {
    const Graph graph = scratch.finish();
    int64_t produced = 0;  // what running it would allocate
    for (const Value& v : graph.values) produced += shape_numel(v.type.shape);
    if (produced > 16 * kFoldLimit) return false;
    values = runtime::run_reference(graph, {});
  }
  for (size_t i = 0, k = 0; i < ctx.results().size(); ++i) {
    if (!ctx.output_used(i)) continue;
    const bool known = static_cast<bool>(ctx.results()[i]->data);
    env.slots[node.output(static_cast<int>(i))] = known ? *ctx.results()[i] : Slot{kNoValue, values[k++], false};
  }
  return true;
}

bool operands_known(const onnx::NodeProto& node, const Env& env) {
  int64_t total = 0;
  int present = 0;
  for (const std::string& name : node.input()) {
    if (name.empty()) continue;
    const Slot& s = env.slot(name);
    if (!s.data) return false;
    total += s.data->numel();
    ++present;
  }
  return present > 0 && total <= kFoldLimit;
}

void convert_node(const onnx::NodeProto& node, int opset, Env& env) {
  if (!node.domain().empty() && node.domain() != "ai.onnx") throw Unsupported("domain '" + node.domain() + "' is not supported");
  const auto it = converters().find(node.op_type());
  if (it == converters().end()) throw Unsupported("op type not supported");
  if (operands_known(node, env) && fold(node, opset, it->second, env)) return;
  NodeContext ctx(node, opset, env);
  it->second(ctx);
  check_attributes(ctx);
  for (size_t i = 0; i < ctx.results().size(); ++i) {
    if (!ctx.output_used(i)) continue;
    if (!ctx.results()[i]) ctx.unsupported("output " + std::to_string(i) + " is not supported");
    env.slots[node.output(static_cast<int>(i))] = *ctx.results()[i];
  }
}

// "path:size:mtime_ns" of a file, or "" when it cannot be read.
std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  const int64_t mtime_ns = int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  return fs::absolute(path).string() + ":" + std::to_string(st.st_size) + ":" + std::to_string(mtime_ns);
}

// An initializer's data_source: the model file, the tensor's name, and for
// external data the file it lives in with its offset and length.
std::string initializer_source(const std::string& model_identity, const onnx::TensorProto& init,
                               const std::string& model_dir) {
  if (model_identity.empty()) return "";
  std::string source = model_identity + "#" + init.name();
  if (init.data_location() != onnx::TensorProto::EXTERNAL) return source;
  for (const onnx::StringStringEntryProto& e : init.external_data()) {
    source += "|" + e.key() + "=" + e.value();
    if (e.key() == "location") {
      const std::string id = file_identity((fs::path(model_dir) / e.value()).string());
      if (id.empty()) return "";  // the import reports the missing file
      source += "@" + id;
    }
  }
  return source;
}

Graph import_model(const std::shared_ptr<onnx::ModelProto>& model, const std::string& model_dir,
                   const ImportOptions& options) {
  const int opset = default_opset(*model);
  const onnx::GraphProto& g = model->graph();
  GraphBuilder b(options.graph_name.empty() ? (g.name().empty() ? "onnx" : g.name()) : options.graph_name);
  Env env(b);
  for (const onnx::TensorProto& init : g.initializer()) {
    try {
      env.slots[init.name()] = Slot{kNoValue, tensor_from_proto(init, model, model_dir), true};
      env.sources[init.name()] = initializer_source(options.file_identity, init, model_dir);
    } catch (const Error& e) {
      throw Error("initializer '" + init.name() + "': " + e.what());
    }
  }
  for (const onnx::ValueInfoProto& input : g.input()) {
    if (env.slots.count(input.name()) != 0) continue;  // an initializer listed as input (IR version < 4)
    if (const auto fixed = options.constant_inputs.find(input.name()); fixed != options.constant_inputs.end()) {
      env.slots[input.name()] = Slot{kNoValue, fixed->second, false};
      continue;
    }
    if (!input.type().has_tensor_type()) throw Error("input '" + input.name() + "' is not a tensor");
    DType dtype;
    try {
      dtype = dtype_of_onnx(input.type().tensor_type().elem_type());
    } catch (const Error& e) {
      throw Error("input '" + input.name() + "': " + e.what());
    }
    env.slots[input.name()] = Slot{b.input(input.name(), dtype, input_shape(input, options)), std::nullopt, false};
  }
  for (const onnx::NodeProto& node : g.node()) {
    try {
      convert_node(node, opset, env);
    } catch (const std::exception& e) {
      throw Error(describe(node, opset) + ": " + e.what());
    }
  }
  for (const onnx::ValueInfoProto& output : g.output()) {
    try {
      b.output(output.name(), env.value(output.name()));
    } catch (const std::exception& e) {
      throw Error("output '" + output.name() + "': " + e.what());
    }
  }
  return b.finish();
}

// Parses with the 2 GB protobuf limit rather than the 64 MB default.
bool parse(google::protobuf::io::ZeroCopyInputStream& stream, onnx::ModelProto& model) {
  google::protobuf::io::CodedInputStream coded(&stream);
  coded.SetTotalBytesLimit(INT_MAX);
  return model.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
}

}  // namespace

const ConverterTable& converters() {
  static const ConverterTable table = [] {
    ConverterTable t;
    add_elementwise_converters(t);
    add_nn_converters(t);
    add_shape_converters(t);
    return t;
  }();
  return table;
}

Graph import_onnx_file(const std::string& path, const ImportOptions& options) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path + ": cannot open the ONNX model");
  auto model = std::make_shared<onnx::ModelProto>();
  bool ok;
  {
    google::protobuf::io::FileInputStream stream(fd);
    ok = parse(stream, *model);
  }
  ::close(fd);
  if (!ok) throw Error(path + ": not a valid ONNX model (protobuf parse failed)");
  ImportOptions named = options;
  if (named.graph_name.empty()) named.graph_name = fs::path(path).stem().string();
  named.file_identity = file_identity(path);
  try {
    return import_model(model, fs::absolute(path).parent_path().string(), named);
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

Graph import_onnx_bytes(const std::string& bytes, const std::string& model_dir, const ImportOptions& options) {
  auto model = std::make_shared<onnx::ModelProto>();
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  if (!parse(stream, *model)) throw Error("not a valid ONNX model (protobuf parse failed)");
  return import_model(model, model_dir, options);
}

}  // namespace meshtest::frontends::onnx_import
