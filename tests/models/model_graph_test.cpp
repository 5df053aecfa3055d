// Graphs built by the native loaders: verified, lazy, with the published
// parameter counts and names, inputs that match the graph, and LoadOptions
// (batch_size, seq_len, num_layers, dtype_override) honoured. Nothing here
// executes a graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/rng.h"
#include "tests/models/loader_plugin.h"
#include "tests/models/model_cases.h"

namespace meshtest::testing {
namespace {

sdk::Model load(const std::string& dir, const std::string& variant, const sdk::LoadOptions& options = {}) {
  return make_loader(dir)->load_model(variant, options);
}

const Param& param(const Graph& g, const std::string& name) {
  const Param* p = g.find_param(name);
  if (p == nullptr) throw std::runtime_error("no parameter '" + name + "'");
  return *p;
}

Shape param_shape(const Graph& g, const std::string& name) { return g.type(param(g, name).value).shape; }

const GraphOutput& logits(const Graph& g) {
  EXPECT_EQ(g.outputs.size(), 1u);
  return g.outputs.at(0);
}

bool is_unbatched(const ModelCase& c, const std::string& input) {
  return std::find(c.unbatched_inputs.begin(), c.unbatched_inputs.end(), input) != c.unbatched_inputs.end();
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.nbytes() == b.nbytes() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

class ModelGraphTest : public ::testing::TestWithParam<ModelCase> {};

TEST_P(ModelGraphTest, BuildsAVerifiedGraphWithLogits) {
  const ModelCase& c = GetParam();
  const sdk::Model model = load(c.dir, c.variant);
  EXPECT_NO_THROW(verify_graph(model.graph));
  EXPECT_EQ(logits(model.graph).name, c.output);
  EXPECT_EQ(model.graph.type(logits(model.graph).value), (TensorType{DType::F32, c.logits_shape}));
}

TEST_P(ModelGraphTest, ParameterCountIsThePublishedOne) {
  const ModelCase& c = GetParam();
  const sdk::Model model = load(c.dir, c.variant);
  EXPECT_EQ(trainable_param_count(model.graph), c.trainable_params);
}

TEST_P(ModelGraphTest, WeightsAreLazyAndSeededFromTheirNames) {
  const ModelCase& c = GetParam();
  const sdk::Model model = load(c.dir, c.variant);
  ASSERT_FALSE(model.graph.weights().empty());
  if (c.variant == "llama_8b_shared_layers") {  // by design: every layer holds layer 0's data
    const Param* q0 = model.graph.find_param("model.layers.0.self_attn.q_proj.weight");
    const Param* q31 = model.graph.find_param("model.layers.31.self_attn.q_proj.weight");
    ASSERT_TRUE(q0 != nullptr && q31 != nullptr && q0->data.defined());
    EXPECT_EQ(q0->data.raw_data(), q31->data.raw_data());
    EXPECT_TRUE(model.graph.find_param("model.embed_tokens.weight")->init.has_value());
    return;
  }
  for (const Param* p : model.graph.weights()) {
    SCOPED_TRACE(p->name);
    EXPECT_FALSE(p->data.defined()) << "the loader materialized a weight";
    ASSERT_TRUE(p->init.has_value());
    if (p->init->dist != Initializer::Dist::Constant) {
      EXPECT_EQ(p->init->seed, hash_seed(c.variant + "/" + p->name));
    }
    EXPECT_EQ(model.graph.type(p->value).dtype, DType::F32);
  }
}

TEST_P(ModelGraphTest, InputsMatchTheGraphAndAreDeterministic) {
  const ModelCase& c = GetParam();
  auto loader = make_loader(c.dir);
  const sdk::Model model = loader->load_model(c.variant, {});
  const sdk::Inputs inputs = loader->load_inputs(c.variant, {});
  const sdk::Inputs again = loader->load_inputs(c.variant, {});
  const auto graph_inputs = model.graph.inputs();
  ASSERT_EQ(inputs.size(), graph_inputs.size());
  for (const Param* p : graph_inputs) {
    SCOPED_TRACE(p->name);
    ASSERT_TRUE(inputs.count(p->name));
    const Tensor& t = inputs.at(p->name);
    EXPECT_EQ(t.dtype(), model.graph.type(p->value).dtype);
    EXPECT_EQ(t.shape(), model.graph.type(p->value).shape);
    EXPECT_TRUE(same_bytes(t, again.at(p->name)));
  }
}

TEST_P(ModelGraphTest, DtypeOverrideDeclaresWeightsAndFloatInputs) {
  const ModelCase& c = GetParam();
  auto loader = make_loader(c.dir);
  sdk::LoadOptions options;
  options.dtype_override = DType::BF16;
  const sdk::Model model = loader->load_model(c.variant, options);
  for (const Param* p : model.graph.weights()) EXPECT_EQ(model.graph.type(p->value).dtype, DType::BF16) << p->name;
  const sdk::Inputs inputs = loader->load_inputs(c.variant, options);
  for (const Param* p : model.graph.inputs()) {
    const DType declared = model.graph.type(p->value).dtype;
    EXPECT_EQ(inputs.at(p->name).dtype(), declared) << p->name;
    if (is_floating(declared)) {
      EXPECT_EQ(declared, DType::BF16) << p->name;
    }
  }
  EXPECT_EQ(model.graph.type(logits(model.graph).value).dtype, DType::BF16);
  EXPECT_EQ(trainable_param_count(model.graph), c.trainable_params);
}

TEST_P(ModelGraphTest, WeightOnlyAndIntegerDtypeOverridesAreRefused) {
  const ModelCase& c = GetParam();
  auto loader = make_loader(c.dir);
  for (DType d : {DType::BFP8_B, DType::I32}) {
    sdk::LoadOptions options;
    options.dtype_override = d;
    EXPECT_THROW(loader->load_model(c.variant, options), Error) << dtype_name(d);
    EXPECT_THROW(loader->load_inputs(c.variant, options), Error) << dtype_name(d);
  }
}

TEST_P(ModelGraphTest, BatchSizeOption) {
  const ModelCase& c = GetParam();
  auto loader = make_loader(c.dir);
  sdk::LoadOptions options;
  options.batch_size = 3;
  const sdk::Model model = loader->load_model(c.variant, options);
  Shape expected = c.logits_shape;
  expected[0] = 3;
  EXPECT_EQ(model.graph.type(logits(model.graph).value).shape, expected);
  for (const auto& [name, t] : loader->load_inputs(c.variant, options)) {
    if (!is_unbatched(c, name)) {
      EXPECT_EQ(t.dim(0), 3) << name;
    }
  }
  options.batch_size = 0;
  EXPECT_THROW(loader->load_model(c.variant, options), Error);
}

INSTANTIATE_TEST_SUITE_P(NativeLoaders, ModelGraphTest, ::testing::ValuesIn(model_cases()),
                         [](const ::testing::TestParamInfo<ModelCase>& info) { return info.param.variant; });

// ---- ResNet: torchvision names and architecture ----

// name -> shape, from a torchvision state_dict listing in tests/models/data.
std::map<std::string, Shape> torchvision_state_dict(const std::string& arch) {
  const std::string path = std::string(MESHTEST_SOURCE_DIR) + "/tests/models/data/torchvision_" + arch + ".txt";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::map<std::string, Shape> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string name, dims;
    ls >> name >> dims;
    Shape shape;
    std::istringstream ds(dims);
    std::string d;
    while (std::getline(ds, d, ',')) shape.push_back(std::stoll(d));
    out[name] = shape;
  }
  return out;
}

class ResNetNamesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ResNetNamesTest, WeightsAreExactlyTorchvisionsStateDict) {
  const std::string arch = GetParam();
  const auto expected = torchvision_state_dict(arch);
  const sdk::Model model = load("resnet/native", arch);
  std::map<std::string, Shape> actual;
  for (const Param* p : model.graph.weights()) actual[p->name] = model.graph.type(p->value).shape;
  EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(Torchvision, ResNetNamesTest, ::testing::Values("resnet18", "resnet50"));

// The conv consuming a named weight.
const Op& op_using(const Graph& g, const std::string& weight) {
  const ValueId v = param(g, weight).value;
  for (const Op& op : g.ops) {
    for (ValueId in : op.inputs) {
      if (in == v) return op;
    }
  }
  throw std::runtime_error("no op uses " + weight);
}

TEST(ResNet, Resnet50StridesOnThe3x3ConvV15) {
  const sdk::Model model = load("resnet/native", "resnet50");
  const Graph& g = model.graph;
  using Ints = std::vector<int64_t>;
  EXPECT_EQ(op_using(g, "conv1.weight").attrs.get_ints("stride"), (Ints{2, 2}));
  EXPECT_EQ(op_using(g, "conv1.weight").attrs.get_ints("padding"), (Ints{3, 3}));
  for (const std::string stage : {"layer2", "layer3", "layer4"}) {
    SCOPED_TRACE(stage);
    EXPECT_EQ(op_using(g, stage + ".0.conv1.weight").attrs.get_ints("stride"), (Ints{1, 1}));
    EXPECT_EQ(op_using(g, stage + ".0.conv2.weight").attrs.get_ints("stride"), (Ints{2, 2}));
    EXPECT_EQ(op_using(g, stage + ".0.downsample.0.weight").attrs.get_ints("stride"), (Ints{2, 2}));
    EXPECT_EQ(op_using(g, stage + ".1.conv2.weight").attrs.get_ints("stride"), (Ints{1, 1}));
  }
  EXPECT_EQ(op_using(g, "layer1.0.downsample.0.weight").attrs.get_ints("stride"), (Ints{1, 1}));
  size_t max_pools = 0;
  for (const Op& op : g.ops) {
    if (op.kind != OpKind::MaxPool2d) continue;
    ++max_pools;
    EXPECT_EQ(op.attrs.get_ints("kernel"), (Ints{3, 3}));
    EXPECT_EQ(op.attrs.get_ints("stride"), (Ints{2, 2}));
    EXPECT_EQ(op.attrs.get_ints("padding"), (Ints{1, 1}));
  }
  EXPECT_EQ(max_pools, 1u);
}

TEST(ResNet, TinyIsTheSameCodeAt64x64) {
  auto loader = make_loader("resnet/native");
  const sdk::Model model = loader->load_model("resnet_tiny", {});
  EXPECT_EQ(model.graph.type(model.graph.inputs().at(0)->value).shape, (Shape{1, 3, 64, 64}));
  EXPECT_EQ(param_shape(model.graph, "conv1.weight"), (Shape{16, 3, 7, 7}));
  EXPECT_EQ(param_shape(model.graph, "layer4.0.conv2.weight"), (Shape{128, 128, 3, 3}));
  EXPECT_EQ(param_shape(model.graph, "layer2.0.downsample.1.running_var"), (Shape{32}));
  EXPECT_EQ(param_shape(model.graph, "fc.weight"), (Shape{10, 128}));
  EXPECT_EQ(model.graph.find_param("layer1.1.conv1.weight"), nullptr);
}

TEST(ResNet, ResidualTailBatchNormStartsSmall) {
  const sdk::Model model = load("resnet/native", "resnet50");
  const Initializer& tail = *param(model.graph, "layer3.2.bn3.weight").init;
  EXPECT_EQ(tail.dist, Initializer::Dist::Uniform);
  EXPECT_LE(tail.b, 0.25);
  // Other gains look trained (models/common/init.h): spread around 1, not 1.
  const Initializer& inner = *param(model.graph, "layer3.2.bn2.weight").init;
  EXPECT_EQ(inner.dist, Initializer::Dist::Uniform);
  EXPECT_LT(inner.a, 1.0);
  EXPECT_GT(inner.b, 1.0);
  const Initializer& var = *param(model.graph, "layer3.2.bn2.running_var").init;
  EXPECT_EQ(var.dist, Initializer::Dist::Uniform);
  EXPECT_GT(var.a, 0.0);
}

// ---- BERT: Hugging Face names, tied decoder, options ----

std::vector<std::string> hf_bert_mlm_names(int64_t layers) {
  std::vector<std::string> names = {"bert.embeddings.word_embeddings.weight",
                                    "bert.embeddings.position_embeddings.weight",
                                    "bert.embeddings.token_type_embeddings.weight", "bert.embeddings.LayerNorm.weight",
                                    "bert.embeddings.LayerNorm.bias"};
  for (int64_t l = 0; l < layers; ++l) {
    const std::string p = "bert.encoder.layer." + std::to_string(l) + ".";
    for (const char* s :
         {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
          "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"}) {
      names.push_back(p + s + ".weight");
      names.push_back(p + s + ".bias");
    }
  }
  for (const char* s : {"cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
                        "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.LayerNorm.bias",
                        "cls.predictions.bias"}) {
    names.push_back(s);
  }
  return names;
}

TEST(Bert, WeightsAreExactlyHuggingFacesNames) {
  const sdk::Model model = load("bert/masked_lm/native", "bert_base");
  std::vector<std::string> actual;
  for (const Param* p : model.graph.weights()) actual.push_back(p->name);
  auto expected = hf_bert_mlm_names(12);
  std::sort(actual.begin(), actual.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(actual, expected);
  const Graph& g = model.graph;
  EXPECT_EQ(param_shape(g, "bert.encoder.layer.11.attention.self.query.weight"), (Shape{768, 768}));
  EXPECT_EQ(param_shape(g, "bert.encoder.layer.0.intermediate.dense.weight"), (Shape{3072, 768}));
  EXPECT_EQ(param_shape(g, "bert.encoder.layer.0.output.dense.weight"), (Shape{768, 3072}));
  EXPECT_EQ(param_shape(g, "bert.embeddings.position_embeddings.weight"), (Shape{512, 768}));
  EXPECT_EQ(param_shape(g, "cls.predictions.bias"), (Shape{30522}));
  const Initializer& w = *param(g, "bert.encoder.layer.3.output.dense.weight").init;
  EXPECT_EQ(w.dist, Initializer::Dist::Normal);
  EXPECT_DOUBLE_EQ(w.b, 0.02);
  // Biases are not HF's zeros: a kernel that drops one must change the output.
  const Initializer& bias = *param(g, "bert.encoder.layer.3.output.dense.bias").init;
  EXPECT_EQ(bias.dist, Initializer::Dist::Normal);
  EXPECT_DOUBLE_EQ(bias.b, 0.02);
}

TEST(Bert, DecoderIsTiedToTheWordEmbeddings) {
  const sdk::Model model = load("bert/masked_lm/native", "bert_tiny");
  const Graph& g = model.graph;
  const ValueId table = param(g, "bert.embeddings.word_embeddings.weight").value;
  std::vector<OpKind> users;
  for (const Op& op : g.ops) {
    for (ValueId in : op.inputs) {
      if (in == table) users.push_back(op.kind);
    }
  }
  EXPECT_EQ(users, (std::vector<OpKind>{OpKind::Embedding, OpKind::Linear}));
  // The logits come straight out of that linear (x @ word_embeddings^T + bias).
  const Op& last = g.ops.back();
  EXPECT_EQ(last.output, logits(g).value);
  EXPECT_EQ(last.inputs.at(1), table);
  EXPECT_EQ(last.inputs.at(2), param(g, "cls.predictions.bias").value);
}

TEST(Bert, GeluIsExactAndLayerNormEpsIs1e12) {
  const sdk::Model model = load("bert/masked_lm/native", "bert_tiny");
  size_t gelus = 0, norms = 0;
  for (const Op& op : model.graph.ops) {
    if (op.kind == OpKind::Gelu) {
      ++gelus;
      EXPECT_EQ(op.attrs.get_string("approximate"), "none");
    }
    if (op.kind == OpKind::LayerNorm) {
      ++norms;
      EXPECT_DOUBLE_EQ(op.attrs.get_float("eps"), 1e-12);
    }
  }
  EXPECT_EQ(gelus, 2u + 1u);            // one per layer + the MLM transform
  EXPECT_EQ(norms, 1u + 2u * 2u + 1u);  // embeddings, two per layer, MLM transform
}

TEST(Bert, SeqLenBatchAndNumLayersOptions) {
  auto loader = make_loader("bert/masked_lm/native");
  sdk::LoadOptions options;
  options.batch_size = 2;
  options.seq_len = 64;
  options.num_layers = 3;
  const sdk::Model model = loader->load_model("bert_base", options);
  EXPECT_EQ(model.graph.type(logits(model.graph).value).shape, (Shape{2, 64, 30522}));
  EXPECT_NE(model.graph.find_param("bert.encoder.layer.2.output.LayerNorm.bias"), nullptr);
  EXPECT_EQ(model.graph.find_param("bert.encoder.layer.3.attention.self.query.weight"), nullptr);
  EXPECT_EQ(trainable_param_count(model.graph), 109'514'298 - 9 * 7'087'872);
  // Layers that stay keep their values: seeds do not depend on num_layers.
  const sdk::Model full = loader->load_model("bert_base", {});
  const std::string name = "bert.encoder.layer.1.attention.self.key.weight";
  EXPECT_EQ(*param(model.graph, name).init, *param(full.graph, name).init);

  const sdk::Inputs inputs = loader->load_inputs("bert_base", options);
  for (const auto& [name, t] : inputs) EXPECT_EQ(t.shape(), (Shape{2, 64})) << name;

  for (int64_t bad : {0, 513}) {
    sdk::LoadOptions o;
    o.seq_len = bad;
    EXPECT_THROW(loader->load_model("bert_tiny", o), Error) << bad;
  }
  sdk::LoadOptions deep;
  deep.num_layers = 3;
  EXPECT_THROW(loader->load_model("bert_tiny", deep), Error);
  deep.num_layers = 0;
  EXPECT_THROW(loader->load_model("bert_tiny", deep), Error);
}

TEST(Bert, SampleInputsFollowTheConvention) {
  auto loader = make_loader("bert/masked_lm/native");
  const sdk::Inputs inputs = loader->load_inputs("bert_tiny", {});
  const Tensor& ids = inputs.at("input_ids");
  const Tensor& types = inputs.at("token_type_ids");
  const Tensor& mask = inputs.at("attention_mask");
  ASSERT_EQ(ids.dtype(), DType::I64);
  ASSERT_EQ(types.dtype(), DType::I64);
  ASSERT_EQ(mask.dtype(), DType::F32);
  const int64_t seq = 128;
  std::set<int64_t> distinct;
  for (int64_t s = 0; s < seq; ++s) {
    const int64_t id = ids.data<int64_t>()[s];
    EXPECT_GE(id, 1000);
    EXPECT_LT(id, 30000);
    distinct.insert(id);
    EXPECT_EQ(types.data<int64_t>()[s], s < seq / 2 ? 0 : 1) << s;
    EXPECT_EQ(mask.data<float>()[s], s < seq - seq / 8 ? 1.0f : 0.0f) << s;
  }
  // Text-like ids (models/common/causal_lm.h token_ids): spread over the
  // vocabulary, with a few frequent ids repeated (an embedding gradient must
  // accumulate them). 128 positions: about 64 uniform ids plus 16 frequent ones.
  EXPECT_GT(distinct.size(), 50u);
  EXPECT_LT(distinct.size(), 110u);
  // Different variants get different ids.
  const sdk::Inputs base = loader->load_inputs("bert_base", {});
  EXPECT_FALSE(same_bytes(ids, base.at("input_ids")));
}

TEST(Bert, AttentionMaskBecomesAnAdditiveBroadcastMask) {
  const sdk::Model model = load("bert/masked_lm/native", "bert_tiny");
  const Graph& g = model.graph;
  const ValueId mask = param(g, "attention_mask").value;
  // attention_mask -> sub(1, m) -> mul(-10000) -> reshape [B,1,1,S] -> added to scores.
  const Op* sub = nullptr;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::Sub && op.inputs.at(1) == mask) sub = &op;
  }
  ASSERT_NE(sub, nullptr);
  const Op* reshape = nullptr;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::Reshape && g.type(op.output).shape == Shape{1, 1, 1, 128}) reshape = &op;
  }
  ASSERT_NE(reshape, nullptr);
  size_t uses = 0;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::Add && op.inputs.at(1) == reshape->output) {
      ++uses;
      EXPECT_EQ(g.type(op.output).shape, (Shape{1, 2, 128, 128}));
    }
  }
  EXPECT_EQ(uses, 2u);  // once per layer
}

// ---- MNIST ----

TEST(Mnist, FlattensTheImageIntoThreeLinearLayers) {
  const sdk::Model model = load("mnist/image_classification/native", "mlp");
  const Graph& g = model.graph;
  EXPECT_EQ(g.type(param(g, "image").value), (TensorType{DType::F32, {1, 1, 28, 28}}));
  EXPECT_EQ(param_shape(g, "fc1.weight"), (Shape{512, 784}));
  EXPECT_EQ(param_shape(g, "fc2.weight"), (Shape{512, 512}));
  EXPECT_EQ(param_shape(g, "fc3.weight"), (Shape{10, 512}));
  EXPECT_EQ(param_shape(g, "fc3.bias"), (Shape{10}));
  EXPECT_EQ(g.weights().size(), 6u);
}

}  // namespace
}  // namespace meshtest::testing
