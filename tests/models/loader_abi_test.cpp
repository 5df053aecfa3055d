// Model loader plugins as discovery sees them: ABI symbols and version,
// variant lists, infos, and that collection (variants + info) stays cheap.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "tests/models/allocation_counter.h"
#include "tests/models/loader_plugin.h"
#include "tests/models/model_cases.h"

namespace meshtest::testing {
namespace {

const std::vector<std::string> kDirs = {"mnist/image_classification/native", "resnet/native", "mobilenet_v2/native",
                                        "vit/native",  "unet/native", "bert/masked_lm/native",
                                        "gpt2/causal_lm/native", "llama/causal_lm/native", "mixtral/causal_lm/native",
                                        "whisper/audio_asr/native"};

TEST(LoaderAbi, EveryPluginExportsTheVersionedEntryPoints) {
  for (const std::string& dir : kDirs) {
    SCOPED_TRACE(dir);
    const LoaderPlugin& p = open_loader_plugin(dir);
    ASSERT_NE(p.abi_version, nullptr);
    ASSERT_NE(p.create, nullptr);
    ASSERT_NE(p.destroy, nullptr);
    EXPECT_EQ(p.abi_version(), sdk::kLoaderAbiVersion);
    sdk::ModelLoader* loader = p.create();
    ASSERT_NE(loader, nullptr);
    p.destroy(loader);
  }
}

TEST(LoaderAbi, VariantsAreTheDocumentedOnes) {
  EXPECT_EQ(make_loader("mnist/image_classification/native")->variants(), std::vector<std::string>{"mlp"});
  EXPECT_EQ(make_loader("resnet/native")->variants(),
            (std::vector<std::string>{"resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "resnet_tiny"}));
  EXPECT_EQ(make_loader("bert/masked_lm/native")->variants(),
            (std::vector<std::string>{"bert_tiny", "bert_base", "bert_large"}));
  EXPECT_EQ(make_loader("llama/causal_lm/native")->variants(),
            (std::vector<std::string>{"llama_3_2_1b", "llama_3_2_3b", "llama_3_1_8b", "llama_3_1_70b", "llama_tiny",
                                      "llama_8b_shared_layers"}));
}

TEST(LoaderAbi, EveryCaseIsAListedVariant) {
  std::set<std::pair<std::string, std::string>> listed;
  for (const std::string& dir : kDirs) {
    for (const std::string& v : make_loader(dir)->variants()) listed.insert({dir, v});
  }
  EXPECT_EQ(listed.size(), model_cases().size());
  for (const ModelCase& c : model_cases()) EXPECT_TRUE(listed.count({c.dir, c.variant})) << c.dir << " " << c.variant;
}

struct ExpectedInfo {
  std::string dir, model, group, task, source;
};

TEST(LoaderAbi, InfoDescribesEveryVariant) {
  const std::vector<ExpectedInfo> expected = {
      {"mnist/image_classification/native", "mnist", "generality", "cv_image_cls", "meshtest"},
      {"resnet/native", "resnet", "red", "cv_image_cls", "torchvision"},
      {"bert/masked_lm/native", "bert", "priority", "nlp_masked_lm", "huggingface"},
      {"mobilenet_v2/native", "mobilenet_v2", "generality", "cv_image_cls", "torchvision"},
      {"vit/native", "vit", "generality", "cv_image_cls", "torchvision"},
      {"unet/native", "unet", "generality", "cv_image_seg", "milesial/Pytorch-UNet"},
      {"gpt2/causal_lm/native", "gpt2", "priority", "nlp_causal_lm", "huggingface"},
      {"llama/causal_lm/native", "llama", "red", "nlp_causal_lm", "huggingface"},
      {"whisper/audio_asr/native", "whisper", "generality", "audio_asr", "huggingface"},
      {"mixtral/causal_lm/native", "mixtral", "priority", "nlp_causal_lm", "huggingface"},
  };
  for (const ExpectedInfo& e : expected) {
    auto loader = make_loader(e.dir);
    for (const std::string& variant : loader->variants()) {
      SCOPED_TRACE(e.dir + " " + variant);
      const sdk::ModelInfo info = loader->info(variant);
      EXPECT_EQ(info.model, e.model);
      EXPECT_EQ(info.variant, variant);
      EXPECT_EQ(info.group, e.group);
      EXPECT_EQ(info.task, e.task);
      EXPECT_EQ(info.source, e.source);
      EXPECT_EQ(info.framework, "native");
    }
  }
}

TEST(LoaderAbi, UnknownVariantIsAnError) {
  for (const std::string& dir : kDirs) {
    auto loader = make_loader(dir);
    EXPECT_THROW(loader->info("no_such_variant"), Error) << dir;
    EXPECT_THROW(loader->load_model("no_such_variant", {}), Error) << dir;
    EXPECT_THROW(loader->load_inputs("no_such_variant", {}), Error) << dir;
  }
}

// Collection must not build graphs: listing every variant's info costs a
// handful of small allocations per variant (names, info strings); building even resnet_tiny's graph
// costs over a thousand (the positive control proves the counter sees
// allocations made inside plugins).
TEST(LoaderAbi, CollectionBuildsNoGraph) {
  std::vector<LoaderPtr> loaders;
  for (const std::string& dir : kDirs) loaders.push_back(make_loader(dir));
  const AllocationCount before = allocations_so_far();
  size_t infos = 0;
  for (const auto& loader : loaders) {
    for (const std::string& variant : loader->variants()) {
      const sdk::ModelInfo info = loader->info(variant);
      infos += info.model.empty() ? 0 : 1;
    }
  }
  const AllocationCount spent = allocations_so_far() - before;
  EXPECT_EQ(infos, model_cases().size());
  RecordProperty("collection_allocations", std::to_string(spent.calls));
  RecordProperty("collection_bytes", std::to_string(spent.bytes));
  EXPECT_LT(spent.calls, 10u * model_cases().size());
  EXPECT_LT(spent.bytes, 1024u * model_cases().size());

  const AllocationCount before_build = allocations_so_far();
  const sdk::Model model = loaders[1]->load_model("resnet_tiny", {});
  const AllocationCount build = allocations_so_far() - before_build;
  EXPECT_GT(build.calls, 500u);
  RecordProperty("resnet_tiny_build_allocations", std::to_string(build.calls));
  EXPECT_FALSE(model.graph.ops.empty());
}

}  // namespace
}  // namespace meshtest::testing
