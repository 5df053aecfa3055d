// The ONNX importer on small models built here: folding of shape chains,
// opset-dependent forms, pinned and unpinned dynamic dimensions, unsupported
// ops and attributes reported with op type, node name and opset, external
// data confined to the model's folder and checked before mapping, and the
// loader.yaml loader (collect never opens the model; malformed files report
// file:line:column, also through discovery).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "discovery/discovery.h"
#include "frontends/frontend_registry.h"
#include "frontends/onnx/onnx_importer.h"
#include "frontends/onnx/onnx_loader.h"
#include "frontends/onnx/onnx_tensor.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest {
namespace {

namespace fs = std::filesystem;
using namespace frontends::onnx_import;
using testing::HasSubstr;

// A ModelProto under construction.
class Model {
 public:
  explicit Model(int opset) {
    proto_.set_ir_version(8);
    auto* o = proto_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  onnx::GraphProto& g() { return *proto_.mutable_graph(); }
  // dims: >= 0 fixed, -1 symbolic named `sym`.
  void input(const std::string& name, std::vector<int64_t> dims, int type = onnx::TensorProto::FLOAT, const std::string& sym = "N") {
    auto* vi = g().add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    for (int64_t d : dims) {
      auto* dim = tt->mutable_shape()->add_dim();
      if (d >= 0) dim->set_dim_value(d);
      else dim->set_dim_param(sym);
    }
  }
  void output(const std::string& name) { g().add_output()->set_name(name); }
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out, const std::string& name = "") {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : in) n->add_input(i);
    for (auto& o : out) n->add_output(o);
    return *n;
  }
  onnx::TensorProto& i64(const std::string& name, std::vector<int64_t> values) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
    return *t;
  }
  onnx::TensorProto& f32(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4));
    return *t;
  }
  Graph import(const ImportOptions& options = {}) const { return import_onnx_bytes(proto_.SerializeAsString(), dir, options); }
  void save(const fs::path& path) const {
    std::ofstream out(path, std::ios::binary);
    proto_.SerializeToOstream(&out);
  }
  std::string dir;

 private:
  onnx::ModelProto proto_;
};

void attr_ints(onnx::NodeProto& n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}
void attr_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
void attr_float(onnx::NodeProto& n, const std::string& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<float> run(const Graph& g, const std::string& input, const Tensor& x) {
  return runtime::run_reference(g, {{input, x}}).at(0).to_f32_vector();
}

TEST(OnnxImporter, ShapeChainsFoldToOneReshape) {
  // x.reshape(x.shape[0], -1) as PyTorch exports it.
  Model m(13);
  m.input("x", {2, 3, 4});
  m.i64("zero", {0});
  m.i64("minus_one", {-1});
  m.node("Shape", {"x"}, {"s"});
  auto& gather = m.node("Gather", {"s", "idx"}, {"n"});
  attr_int(gather, "axis", 0);
  auto* idx = m.g().add_initializer();
  idx->set_name("idx");
  idx->set_data_type(onnx::TensorProto::INT64);
  idx->add_int64_data(0);  // a scalar
  m.node("Unsqueeze", {"n", "zero"}, {"n1"});
  auto& cat = m.node("Concat", {"n1", "minus_one"}, {"shape"});
  attr_int(cat, "axis", 0);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y");
  const Graph g = m.import();
  ASSERT_EQ(g.ops.size(), 1u) << "the shape chain left ops behind";
  EXPECT_EQ(g.ops[0].kind, OpKind::Reshape);
  EXPECT_EQ(g.type(g.outputs[0].value).shape, (Shape{2, 12}));
}

TEST(OnnxImporter, AxesComeFromAttributesOrInputsByOpset) {
  for (int opset : {11, 13}) {
    Model m(opset);
    m.input("x", {3});
    auto& n = m.node("Unsqueeze", opset < 13 ? std::vector<std::string>{"x"} : std::vector<std::string>{"x", "axes"}, {"y"});
    if (opset < 13) attr_ints(n, "axes", {0, 2});
    else m.i64("axes", {0, 2});
    m.output("y");
    EXPECT_EQ(m.import().type(0).shape, (Shape{3})) << opset;
    const Graph g = m.import();
    EXPECT_EQ(g.type(g.outputs[0].value).shape, (Shape{1, 3, 1})) << "opset " << opset;
  }
}

TEST(OnnxImporter, ClipBoundsComeFromAttributesOrInputsByOpset) {
  const Tensor x = Tensor::from_f32({4}, {-2, -0.5f, 0.5f, 2});
  Model old(10);
  old.input("x", {4});
  auto& n = old.node("Clip", {"x"}, {"y"});
  attr_float(n, "min", -1);
  attr_float(n, "max", 1);
  old.output("y");
  EXPECT_EQ(run(old.import(), "x", x), (std::vector<float>{-1, -0.5f, 0.5f, 1}));
  Model now(13);
  now.input("x", {4});
  now.f32("lo", {}, {-1});
  now.node("Clip", {"x", "lo", ""}, {"y"});  // no max
  now.output("y");
  EXPECT_EQ(run(now.import(), "x", x), (std::vector<float>{-1, -0.5f, 0.5f, 2}));
}

TEST(OnnxImporter, DynamicDimensionsArePinnedOrAClearError) {
  Model m(13);
  m.input("x", {-1, 4});
  m.node("Relu", {"x"}, {"y"});
  m.output("y");
  EXPECT_THAT(error_of([&] { m.import(); }), HasSubstr("input 'x' dimension 0 ('N') is dynamic: pin it in loader.yaml"));
  ImportOptions by_name;
  by_name.dims["N"] = 3;
  EXPECT_EQ(m.import(by_name).type(0).shape, (Shape{3, 4}));
  ImportOptions by_shape;
  by_shape.input_shapes["x"] = {5, 4};
  EXPECT_EQ(m.import(by_shape).type(0).shape, (Shape{5, 4}));
  by_shape.input_shapes["x"] = {5, 3};
  EXPECT_THAT(error_of([&] { m.import(by_shape); }), HasSubstr("dimension 1 is 4 in the model, loader.yaml gives 3"));
}

TEST(OnnxImporter, UnsupportedOpsAndAttributesNameNodeOpTypeAndOpset) {
  Model op(13);
  op.input("x", {4});
  op.i64("k", {2});
  op.node("TopK", {"x", "k"}, {"v", "i"}, "top");
  op.output("v");
  EXPECT_THAT(error_of([&] { op.import(); }), HasSubstr("ONNX node 'top' (TopK, opset 13): op type not supported"));
  Model attr(13);
  attr.input("x", {4});
  attr_int(attr.node("Relu", {"x"}, {"y"}, "act"), "fancy", 1);
  attr.output("y");
  EXPECT_THAT(error_of([&] { attr.import(); }), HasSubstr("ONNX node 'act' (Relu, opset 13): attribute 'fancy' is not supported"));
  Model opset(19);
  opset.input("x", {4});
  opset.output("x");
  EXPECT_THAT(error_of([&] { opset.import(); }), HasSubstr("opset 19 is outside what the importer reads (6-18)"));
}

class OnnxFiles : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("meshtest-onnx-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "model");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const fs::path& relative, const std::string& text) const {
    fs::create_directories((dir_ / relative).parent_path());
    std::ofstream(dir_ / relative, std::ios::binary) << text;
  }
  // y = x + w, w [4] external in `location` at `offset` with `length`.
  Model external(const std::string& location, int64_t offset, int64_t length) const {
    Model m(13);
    m.dir = (dir_ / "model").string();
    m.input("x", {4});
    auto* w = m.g().add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(4);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
             {"location", location}, {"offset", std::to_string(offset)}, {"length", std::to_string(length)}}) {
      auto* e = w->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    m.node("Add", {"x", "w"}, {"y"});
    m.output("y");
    return m;
  }
  fs::path dir_;
};

TEST_F(OnnxFiles, ExternalDataIsReadFromTheModelsFolder) {
  const float w[5] = {0, 1, 2, 3, 4};
  write("model/weights.bin", std::string(reinterpret_cast<const char*>(w), sizeof(w)));
  const Graph g = external("weights.bin", 4, 16).import();
  EXPECT_EQ(run(g, "x", Tensor::from_f32({4}, {1, 1, 1, 1})), (std::vector<float>{2, 3, 4, 5}));
}

TEST_F(OnnxFiles, ExternalDataMayNotLeaveTheModelsFolder) {
  write("secret.bin", std::string(16, '\0'));
  EXPECT_THAT(error_of([&] { external("../secret.bin", 0, 16).import(); }), HasSubstr("leaves the model's folder"));
  EXPECT_THAT(error_of([&] { external((dir_ / "secret.bin").string(), 0, 16).import(); }), HasSubstr("must be a relative path"));
  fs::create_symlink(dir_ / "secret.bin", dir_ / "model" / "link.bin");
  EXPECT_THAT(error_of([&] { external("link.bin", 0, 16).import(); }), HasSubstr("leaves the model's folder"));
}

TEST_F(OnnxFiles, ExternalDataSizesAreCheckedAgainstTheFile) {
  write("model/weights.bin", std::string(16, '\0'));
  EXPECT_THAT(error_of([&] { external("weights.bin", 4, 16).import(); }), HasSubstr("holds 16 bytes, the tensor declares offset 4 length 16"));
  EXPECT_THAT(error_of([&] { external("weights.bin", 0, 1ll << 40).import(); }), HasSubstr("external data length 1099511627776 but [4] FLOAT needs 16 bytes"));
}

const char* kLoader = R"(info: {model: tiny, task: cv_image_cls, source: test}
variants:
  small:
    onnx: model/tiny.onnx
    dims: {N: 2}
    inputs:
      x: {shape: [2, 4], distribution: uniform, low: -1, high: 1, seed: 7}
    shard_spec:
      w: [model]
    mesh: {shape: [1, 2], axis_names: [batch, model]}
    training: {output: y}
)";

TEST_F(OnnxFiles, CollectNeverOpensTheModel) {
  write("loader.yaml", kLoader);
  write("model/tiny.onnx", "not a model");
  const auto loader = load_onnx_loader((dir_ / "loader.yaml").string());
  EXPECT_EQ(loader->variants(), std::vector<std::string>{"small"});
  EXPECT_EQ(loader->info("small").model, "tiny");
  EXPECT_EQ(loader->info("small").framework, "onnx");
  EXPECT_EQ(loader->training("small").output, "y");
  EXPECT_EQ(loader->mesh_config("small", 2)->axis_names, (std::vector<std::string>{"batch", "model"}));
  EXPECT_THAT(error_of([&] { loader->load_model("small", {}); }), HasSubstr("not a valid ONNX model"));
}

TEST_F(OnnxFiles, LoaderBuildsTheGraphAndItsInputs) {
  write("loader.yaml", kLoader);
  Model m(13);
  m.input("x", {-1, 4});
  m.f32("w", {4}, {1, 2, 3, 4});
  m.node("Mul", {"x", "w"}, {"y"});
  m.output("y");
  m.save(dir_ / "model" / "tiny.onnx");
  const auto loader = load_onnx_loader((dir_ / "loader.yaml").string());
  const sdk::Model model = loader->load_model("small", {});
  const sdk::Inputs inputs = loader->load_inputs("small", {});
  EXPECT_EQ(model.graph.type(0).shape, (Shape{2, 4}));
  ASSERT_EQ(inputs.at("x").shape(), (Shape{2, 4}));
  for (float v : inputs.at("x").to_f32_vector()) EXPECT_TRUE(v >= -1 && v <= 1);
  EXPECT_EQ(loader->shard_spec("small", model)->at("w"), (sdk::PartitionSpec{{"model"}}));
}

TEST_F(OnnxFiles, ConstantInputsFoldAndBatchSizeSetsDimZero) {
  write("loader.yaml", R"(onnx: m.onnx
inputs:
  x: {file: x.pb}
  shape: {file: shape.pb, constant: true}
)");
  Model m(13);
  m.input("x", {-1, 4});
  m.input("shape", {2}, onnx::TensorProto::INT64);
  m.node("Reshape", {"x", "shape"}, {"y"});
  m.output("y");
  m.save(dir_ / "m.onnx");
  auto save_tensor = [&](const std::string& file, int type, std::vector<int64_t> dims, const std::string& raw) {
    onnx::TensorProto t;
    t.set_data_type(type);
    for (int64_t d : dims) t.add_dims(d);
    t.set_raw_data(raw);
    write(file, t.SerializeAsString());
  };
  const std::vector<float> x{1, 2, 3, 4};
  const std::vector<int64_t> shape{-1, 2};
  save_tensor("x.pb", onnx::TensorProto::FLOAT, {1, 4}, std::string(reinterpret_cast<const char*>(x.data()), 16));
  save_tensor("shape.pb", onnx::TensorProto::INT64, {2}, std::string(reinterpret_cast<const char*>(shape.data()), 16));
  const auto loader = load_onnx_loader((dir_ / "loader.yaml").string());
  const sdk::Model model = loader->load_model("", {});
  EXPECT_EQ(model.graph.inputs().size(), 1u) << "the constant input is no graph input";
  EXPECT_EQ(model.graph.type(model.graph.outputs[0].value).shape, (Shape{2, 2}));
  EXPECT_EQ(loader->load_inputs("", {}).count("shape"), 0u);
  sdk::LoadOptions batch3;
  batch3.batch_size = 3;
  const sdk::Model batched = loader->load_model("", batch3);
  EXPECT_EQ(batched.graph.type(batched.graph.outputs[0].value).shape, (Shape{6, 2}));
  const Tensor repeated = loader->load_inputs("", batch3).at("x");
  EXPECT_EQ(repeated.shape(), (Shape{3, 4}));
  EXPECT_EQ(repeated.to_f32_vector(), (std::vector<float>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}));
  sdk::LoadOptions bf16;
  bf16.dtype_override = DType::BF16;
  EXPECT_THAT(error_of([&] { loader->load_model("", bf16); }), HasSubstr("dtype_override bf16 is not supported"));
}

TEST_F(OnnxFiles, MalformedLoaderYamlNamesFileAndLine) {
  write("a/onnx/loader.yaml", "variants:\n  v:\n    onnx: m.onnx\n    inptus: {}\n");
  EXPECT_THAT(error_of([&] { load_onnx_loader((dir_ / "a/onnx/loader.yaml").string()); }),
              HasSubstr("a/onnx/loader.yaml:4:5: unknown key 'inptus' in variant 'v'"));
  write("b/onnx/loader.yaml", "variants:\n  v:\n    onnx: ../m.onnx\n");
  write("c/onnx/loader.yaml", "variants: [\n");
  const discovery::Discovery d = discovery::discover({dir_.string()}, frontends::builtin_frontends());
  ASSERT_EQ(d.failures.size(), 3u);
  EXPECT_THAT(d.failures[1].error, HasSubstr("b/onnx/loader.yaml:3:11: onnx '../m.onnx' must be a relative path inside the loader's folder"));
  EXPECT_THAT(d.failures[2].error, HasSubstr("c/onnx/loader.yaml:2:1:"));
}

}  // namespace
}  // namespace meshtest
