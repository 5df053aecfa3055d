// Debugging a failure, through the `meshtest` binary: `run --save-tensors DIR`
// writes a failed case's inputs, golden and device tensors (training: and
// gradients, updated weights) as safetensors under DIR/<test id>/ under both
// isolation modes, a passing case writes nothing (with --save-tensors-when
// always, it writes them too); $MESHTEST_INPUTS_DIR
// replaces a loader's inputs by name (the golden follows) and a file that
// does not fit fails the case naming the input, the file and both shapes.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "core/safetensors.h"
#include "tests/common/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using meshtest::Tensor;
using meshtest::testing::CommandResult;
using TensorFile = std::map<std::string, Tensor>;

const std::string kMlp = "mnist/image_classification/native-mlp-single_device-inference";
const std::string kMlpFolder = "mnist_image_classification_native-mlp-single_device-inference";
const std::string kBertTraining = "bert/masked_lm/native-bert_tiny-single_device-training";
// Noise on every linear result of the device (runtime/device/simulated_chip.h).
const std::string kPerturbLinear = "MESHTEST_TEST_PERTURB_DEVICE_OP=linear";

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

class SaveTensors : public ::testing::Test {
 protected:
  CommandResult run(const std::string& args, const std::string& env = "") const {
    return meshtest::testing::run_meshtest("run " + args + " --db " + (dir / "results.db").string(), env);
  }
  TensorFile saved(const std::string& folder, const std::string& file) const {
    return meshtest::read_safetensors((dir / "saved" / folder / (file + ".safetensors")).string());
  }
  std::string save_option() const { return " --save-tensors " + (dir / "saved").string(); }

  const meshtest::testing::TestDir dir{"meshtest_save_tensors_"};
};

// Golden and device files name the same tensors with the same shapes, and
// the device's differ from the golden's.
void expect_same_names_different_values(const TensorFile& golden, const TensorFile& device) {
  ASSERT_FALSE(golden.empty());
  ASSERT_EQ(golden.size(), device.size());
  bool any_differs = false;
  for (const auto& [name, g] : golden) {
    ASSERT_TRUE(device.count(name)) << name;
    EXPECT_EQ(device.at(name).shape(), g.shape()) << name;
    any_differs |= !same_bytes(device.at(name).to(g.dtype()), g);
  }
  EXPECT_TRUE(any_differs);
}

class SaveTensorsIsolation : public SaveTensors, public ::testing::WithParamInterface<std::string> {};

TEST_P(SaveTensorsIsolation, FailedCaseWritesInputsGoldenAndDevice) {
  const CommandResult r = run(kMlp + " --isolation " + GetParam() + save_option(), kPerturbLinear);
  ASSERT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("tensors saved in " + (dir / "saved" / kMlpFolder).string() + "\n"), std::string::npos)
      << r.output;
  const TensorFile inputs = saved(kMlpFolder, "inputs");
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs.at("image").shape(), (meshtest::Shape{1, 1, 28, 28}));
  const TensorFile golden = saved(kMlpFolder, "golden");
  EXPECT_EQ(golden.begin()->second.dtype(), meshtest::DType::F32);
  expect_same_names_different_values(golden, saved(kMlpFolder, "device"));
  EXPECT_FALSE(fs::exists(dir / "saved" / kMlpFolder / "golden_gradients.safetensors"));
}

INSTANTIATE_TEST_SUITE_P(BothModes, SaveTensorsIsolation, ::testing::Values("process", "none"));

TEST_F(SaveTensors, PassingCaseWritesNothing) {
  const CommandResult r = run(kMlp + save_option());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("tensors saved"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "saved" / kMlpFolder));
}

// --save-tensors-when always: a passing case's tensors too (to compare with another framework's outputs).
TEST_F(SaveTensors, WhenAlwaysAPassingCaseWritesInputsGoldenAndDevice) {
  const CommandResult r = run(kMlp + save_option() + " --save-tensors-when always");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(saved(kMlpFolder, "inputs").size(), 1u);
  const TensorFile golden = saved(kMlpFolder, "golden");
  const TensorFile device = saved(kMlpFolder, "device");
  ASSERT_FALSE(golden.empty());
  ASSERT_EQ(golden.size(), device.size());
  for (const auto& [name, g] : golden) {
    ASSERT_TRUE(device.count(name)) << name;
    EXPECT_EQ(device.at(name).shape(), g.shape()) << name;
  }
}

TEST_F(SaveTensors, WhenWithoutAFolderIsAUsageError) {
  const CommandResult r = run(kMlp + " --save-tensors-when always");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--save-tensors"), std::string::npos) << r.output;
}

TEST_F(SaveTensors, FailedTrainingCaseWritesGradientsAndUpdatedWeightsByParameterName) {
  const CommandResult r =
      run(kBertTraining + " --optimizer-step sgd:0.01" + save_option(), "MESHTEST_TEST_WRONG_VJP=layer_norm");
  ASSERT_EQ(r.status, 1) << r.output;
  const std::string folder = "bert_masked_lm_native-bert_tiny-single_device-training";
  const TensorFile inputs = saved(folder, "inputs");
  EXPECT_EQ(inputs.at("input_ids").dtype(), meshtest::DType::I64);
  const TensorFile golden_gradients = saved(folder, "golden_gradients");
  EXPECT_TRUE(golden_gradients.count("bert.embeddings.word_embeddings.weight"));
  expect_same_names_different_values(golden_gradients, saved(folder, "device_gradients"));
  expect_same_names_different_values(saved(folder, "golden_updated"), saved(folder, "device_updated"));
  EXPECT_EQ(saved(folder, "golden").size(), 1u);
  EXPECT_EQ(saved(folder, "device").size(), 1u);
}

// The saved inputs, edited, fed back through $MESHTEST_INPUTS_DIR: the run
// uses them (saved again as its inputs) and its golden changes.
TEST_F(SaveTensors, InputsDirReplacesTheLoadersInputAndTheGoldenFollows) {
  ASSERT_EQ(run(kMlp + save_option(), kPerturbLinear).status, 1);
  const TensorFile first_golden = saved(kMlpFolder, "golden");
  const Tensor image = saved(kMlpFolder, "inputs").at("image");
  Tensor doubled(image.dtype(), image.shape());
  for (int64_t i = 0; i < image.numel(); ++i) doubled.data<float>()[i] = 2.0f * image.data<float>()[i] + 0.5f;
  fs::create_directories(dir / "inputs");
  meshtest::write_safetensors((dir / "inputs" / "mlp.safetensors").string(), {{"image", doubled}});
  fs::remove_all(dir / "saved");

  const std::string inputs_env = "MESHTEST_INPUTS_DIR=" + (dir / "inputs").string() + " ";
  ASSERT_EQ(run(kMlp + save_option(), inputs_env + kPerturbLinear).status, 1);
  EXPECT_TRUE(same_bytes(saved(kMlpFolder, "inputs").at("image"), doubled));
  const TensorFile second_golden = saved(kMlpFolder, "golden");
  ASSERT_EQ(second_golden.size(), first_golden.size());
  EXPECT_FALSE(same_bytes(second_golden.begin()->second, first_golden.begin()->second));
}

TEST_F(SaveTensors, InputsFileThatDoesNotFitFailsNamingInputFileAndShapes) {
  fs::create_directories(dir / "inputs");
  const std::string file = (dir / "inputs" / "mlp.safetensors").string();
  const std::string inputs_env = "MESHTEST_INPUTS_DIR=" + (dir / "inputs").string();
  meshtest::write_safetensors(file, {{"image", Tensor(meshtest::DType::F32, {2, 784})}});
  CommandResult r = run(kMlp, inputs_env);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("in phase load_inputs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(file + ": input 'image' has shape [2,784], the model expects [1,1,28,28]"), std::string::npos)
      << r.output;

  meshtest::write_safetensors(file, {{"pixels", Tensor(meshtest::DType::F32, {1, 1, 28, 28})}});
  r = run(kMlp, inputs_env);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(file + ": tensor 'pixels' names no input of the model (its inputs: image)"),
            std::string::npos)
      << r.output;
}

}  // namespace
