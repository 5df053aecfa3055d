// Whole-binary tests of the zoo through `meshtest`: collection lists every
// family and variant, and every tiny variant passes single-device inference
// end to end (CPU golden vs simulated chip) in the default run.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/cli_fixture.h"

namespace meshtest::testing {
namespace {

using Result = CommandResult;

const char* const kTinyIds[] = {
    "mnist/image_classification/native-mlp-single_device-inference",
    "resnet/native-resnet_tiny-single_device-inference",
    "mobilenet_v2/native-mobilenet_v2_tiny-single_device-inference",
    "vit/native-vit_tiny-single_device-inference",
    "unet/native-unet_tiny-single_device-inference",
    "bert/masked_lm/native-bert_tiny-single_device-inference",
    "gpt2/causal_lm/native-gpt2_tiny-single_device-inference",
    "llama/causal_lm/native-llama_tiny-single_device-inference",
    "mixtral/causal_lm/native-mixtral_tiny-single_device-inference",
    "whisper/audio_asr/native-whisper_tiny-single_device-inference",
};

TEST(ZooCli, CollectListsEveryFamilyAndVariant) {
  const Result r = run_meshtest("collect");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* id : kTinyIds) EXPECT_NE(r.output.find(id), std::string::npos) << id;
  for (const char* variant : {"-resnet152-", "-mobilenet_v2-", "-vit_l_16-", "-unet-", "-bert_large-", "-gpt2_medium-",
                              "-llama_3_1_70b-", "-mixtral_8x7b-", "-whisper_small-"}) {
    EXPECT_NE(r.output.find(variant), std::string::npos) << variant;
  }
  // 34 native variants (33 models and the numerics stress block), one
  // single-device inference case each (other
  // parallelisms, run modes and config placeholders are listed too).
  size_t native_cases = 0;
  for (size_t at = r.output.find("/native-"); at != std::string::npos; at = r.output.find("/native-", at + 1)) {
    const size_t end = r.output.find('\n', at);
    native_cases += end != std::string::npos && r.output.compare(end - 24, 24, "-single_device-inference") == 0;
  }
  EXPECT_EQ(native_cases, 34u) << r.output;
}

// The LLM matrix (docs/how-to/meshes.md) is what these keywords find, for
// every causal-LM family, and nothing else.
TEST(ZooCli, CollectFindsTheLlmMatrixByPhaseAndStrategy) {
  const Result r = run_meshtest("collect -q -k \"prefill or decode or fsdp or megatron\"");
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* id : {"llama/causal_lm/native-llama_tiny-tensor_parallel-decode-seq128-batch1",
                         "mixtral/causal_lm/native-mixtral_tiny-fsdp-prefill-seq32-batch1",
                         "gpt2/causal_lm/native-gpt2_tiny-data_tensor_parallel-decode-seq32-batch1",
                         "llama/causal_lm/native-llama_3_2_1b-single_device-decode-seq128-batch32"}) {
    EXPECT_NE(r.output.find(id), std::string::npos) << id;
  }
  EXPECT_EQ(r.output.find("-inference"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("bert"), std::string::npos) << r.output;
}

TEST(ZooCli, EveryTinyVariantPassesSingleDeviceInference) {
  std::string ids;
  for (const char* id : kTinyIds) ids += std::string(" ") + id;
  const Result r = run_meshtest("run --db '' -j 1" + ids);
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* id : kTinyIds) {
    const size_t at = r.output.find(id);
    ASSERT_NE(at, std::string::npos) << id << "\n" << r.output;
    const size_t line = r.output.rfind('\n', at);
    EXPECT_EQ(r.output.compare(line == std::string::npos ? 0 : line + 1, 6, "PASSED"), 0) << id << "\n" << r.output;
  }
}

}  // namespace
}  // namespace meshtest::testing
