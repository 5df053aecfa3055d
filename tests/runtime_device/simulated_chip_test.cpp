// Tests of the simulated chip itself: DRAM accounting and run-time
// out-of-memory errors, release of every buffer, transfer checks, the bfp8_b
// weight path, the MESHTEST_TEST_PERTURB_DEVICE_OP hook, and the kernels
// given unzeroed result buffers writing every element.
#include "runtime/device/simulated_chip.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>
#include <cstdlib>
#include <thread>

#include "core/error.h"
#include "core/rng.h"
#include "tests/runtime_device/device_test_util.h"

namespace meshtest::runtime {
namespace {

using ::testing::HasSubstr;
using testing_util::expect_close;
using testing_util::NamedTensors;
using testing_util::run_device;
using testing_util::values;

const int64_t kTile64 = tile_padded_bytes({DType::BF16, {1, 64, 64}});  // 8 KiB

// x[1,64,64] -> relu -> exp
Graph chain_graph() {
  GraphBuilder g("chain");
  const ValueId x = g.input("x", DType::F32, {1, 64, 64});
  g.output("y", g.op(OpKind::Exp, {g.relu(x)}));
  return g.finish();
}

NamedTensors chain_inputs() { return {{"x", random_normal({1, 64, 64}, 7)}}; }

// Kernel `kind` on bf16 operands `in`, into a result of `shape` whose bytes
// all start as `fill` (0xff: bf16 NaN poison).
Tensor run_kernel_into(OpKind kind, const std::vector<Tensor>& in, const Attrs& attrs, const Shape& shape,
                       uint8_t fill, DType dtype = DType::BF16) {
  DeviceInstr instr;
  instr.kind = kind;
  instr.attrs = attrs;
  std::vector<const Tensor*> operands;
  for (const Tensor& t : in) operands.push_back(&t);
  Tensor out = Tensor::uninitialized(dtype, shape);
  std::memset(out.raw_data(), fill, out.nbytes());
  (*device_kernel_table().find(kind))(instr, operands, out);
  return out;
}

Tensor bf16_values(const Shape& shape, uint64_t seed) { return random_normal(shape, seed).to(DType::BF16); }

// The chip hands kernels that write_every_element an unzeroed result buffer:
// each such kernel, on every shape family it handles (empty contractions
// included), gives the same bits over a poisoned buffer as over zeros.
TEST(SimulatedChip, KernelsGivenUnzeroedResultsWriteEveryElement) {
  using K = OpKind;
  struct Case {
    K kind;
    std::vector<Tensor> in;
    Attrs attrs;
    Shape out;
  };
  const Tensor x = bf16_values({2, 3, 4}, 1), y = bf16_values({2, 3, 4}, 2), row = bf16_values({4}, 3);
  const Tensor img = bf16_values({1, 4, 6, 6}, 4), ch = bf16_values({4}, 5);
  const Tensor var = random_uniform({4}, 6, 0.5f, 2.0f).to(DType::BF16);
  std::vector<Case> cases = {
      {K::Matmul, {bf16_values({2, 3, 5}, 7), bf16_values({2, 5, 4}, 8)}, {}, {2, 3, 4}},
      {K::Matmul, {bf16_values({2, 1, 3, 5}, 7), bf16_values({3, 5, 4}, 8)}, {}, {2, 3, 3, 4}},
      {K::Matmul, {bf16_values({3, 0}, 7), bf16_values({0, 4}, 8)}, {}, {3, 4}},  // empty contraction
      {K::Linear, {bf16_values({3, 5}, 9), bf16_values({4, 5}, 10), row}, {}, {3, 4}},
      {K::Linear, {bf16_values({3, 5}, 9), bf16_values({4, 5}, 10)}, {}, {3, 4}},
      {K::Linear, {bf16_values({3, 0}, 9), bf16_values({4, 0}, 10)}, {}, {3, 4}},  // empty, no bias
      {K::Linear, {bf16_values({3, 0}, 9), bf16_values({4, 0}, 10), row}, {}, {3, 4}},
      {K::Conv2d, {img, bf16_values({3, 4, 3, 3}, 11), bf16_values({3}, 12)}, {{"padding", std::vector<int64_t>{1, 1}}},
       {1, 3, 6, 6}},
      {K::Conv2d, {img, bf16_values({4, 1, 3, 3}, 11)}, {{"groups", int64_t{4}}, {"stride", std::vector<int64_t>{2, 2}}},
       {1, 4, 2, 2}},
      {K::MaxPool2d, {img}, {{"kernel", std::vector<int64_t>{3, 3}}, {"stride", std::vector<int64_t>{2, 2}},
                             {"padding", std::vector<int64_t>{1, 1}}}, {1, 4, 3, 3}},
      {K::AvgPool2d, {img}, {{"kernel", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}}}, {1, 4, 3, 3}},
      {K::GlobalAvgPool2d, {img}, {}, {1, 4, 1, 1}},
      {K::BatchNorm, {img, ch, bf16_values({4}, 13), bf16_values({4}, 14), var}, {}, {1, 4, 6, 6}},
      {K::LayerNorm, {x, row, bf16_values({4}, 15)}, {}, {2, 3, 4}},
      {K::Softmax, {x}, {{"axis", int64_t{-1}}}, {2, 3, 4}},
      {K::Softmax, {x}, {{"axis", int64_t{1}}}, {2, 3, 4}},
      {K::Reshape, {x}, {}, {6, 4}},
      {K::Transpose, {x}, {{"perm", std::vector<int64_t>{2, 0, 1}}}, {4, 2, 3}},
      {K::Transpose, {row}, {{"perm", std::vector<int64_t>{0}}}, {4}},
      {K::Concat, {x, y, bf16_values({2, 1, 4}, 17)}, {{"axis", int64_t{1}}}, {2, 7, 4}},
      {K::Slice, {x}, {{"axis", int64_t{2}}, {"start", int64_t{1}}, {"step", int64_t{2}}}, {2, 3, 2}},
      {K::Slice, {x}, {{"axis", int64_t{0}}, {"start", int64_t{-1}}}, {1, 3, 4}},
  };
  for (K kind : unary_elementwise_ops()) cases.push_back({kind, {x}, {}, {2, 3, 4}});
  for (K kind : binary_elementwise_ops()) {
    cases.push_back({kind, {x, y}, {}, {2, 3, 4}});
    cases.push_back({kind, {x, row}, {}, {2, 3, 4}});                          // broadcast row
    cases.push_back({kind, {bf16_values({2, 1, 4}, 16), y}, {}, {2, 3, 4}});  // broadcast middle
  }
  std::set<K> covered;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(op_name(c.kind)) + " -> " + shape_to_string(c.out));
    EXPECT_TRUE(writes_every_element(c.kind));
    const Tensor zeroed = run_kernel_into(c.kind, c.in, c.attrs, c.out, 0x00);
    const Tensor poisoned = run_kernel_into(c.kind, c.in, c.attrs, c.out, 0xff);
    EXPECT_EQ(std::memcmp(zeroed.raw_data(), poisoned.raw_data(), zeroed.nbytes()), 0);
    covered.insert(c.kind);
  }
  // Every kind on the list has a case here (adding one to the list needs one).
  for (K kind : all_ops()) {
    if (writes_every_element(kind)) {
      EXPECT_TRUE(covered.count(kind)) << op_name(kind) << " has no case";
    }
  }
  // Kernels that accumulate into their result are not on the list.
  EXPECT_FALSE(writes_every_element(K::EmbeddingBackward));
  EXPECT_FALSE(writes_every_element(K::SliceBackward));
}

TEST(SimulatedChip, RunsWithinExactlyTheMemoryItNeeds) {
  const DeviceProgram program = compiler::compile(chain_graph(), {});
  ChipSpec spec;
  spec.dram_bytes = 2 * kTile64;  // x + relu(x), then relu(x) + exp(.)
  SimulatedChip chip(spec);
  const std::vector<Tensor> out = chip.execute(program, chain_inputs());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DType::F32);
  EXPECT_EQ(chip.last_stats().peak_dram_bytes, 2 * kTile64);
  EXPECT_LE(chip.last_stats().peak_dram_bytes, program.planned_peak_dram_bytes);
  EXPECT_EQ(chip.last_stats().ops_executed, 2);
  EXPECT_EQ(chip.last_stats().dram_bytes_at_end, 0);
}

TEST(SimulatedChip, OutOfMemoryWhileExecutingNamesChipOpAndBytes) {
  const DeviceProgram program = compiler::compile(chain_graph(), {});
  ChipSpec spec;
  spec.dram_bytes = 2 * kTile64 - 1;
  SimulatedChip chip(spec, 3);
  try {
    chip.execute(program, chain_inputs());
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_EQ(std::string(e.what()), "chip 3: out of DRAM executing op #0 relu: need " + std::to_string(kTile64) +
                                         " bytes, " + std::to_string(kTile64) + " of " +
                                         std::to_string(spec.dram_bytes) + " in use");
  }
}

TEST(SimulatedChip, OutOfMemoryWhileUploading) {
  GraphBuilder g("mlp");
  const ValueId x = g.input("x", DType::F32, {4, 64});
  const ValueId w = g.weight("fc.weight", {64, 64}, Initializer::normal(0, 1, 1));
  g.output("y", g.linear(x, w));
  const DeviceProgram program = compiler::compile(g.finish(), {});
  ChipSpec spec;
  spec.dram_bytes = 1000;
  try {
    SimulatedChip(spec).execute(program, {{"x", random_normal({4, 64}, 1)}});
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("chip 0: out of DRAM uploading weight 'fc.weight': need 8192 bytes, 0 of 1000"));
  }
  spec.dram_bytes = 8192 + 100;
  try {
    SimulatedChip(spec).execute(program, {{"x", random_normal({4, 64}, 1)}});
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("chip 0: out of DRAM uploading input 'x': need 4096 bytes, 8192 of 8292 in use"));
  }
}

TEST(SimulatedChip, ReleasesEveryBufferAndReportsLeaks) {
  const DeviceProgram program = compiler::compile(chain_graph(), {});
  SimulatedChip chip(ChipSpec{});
  chip.execute(program, chain_inputs());
  EXPECT_EQ(chip.last_stats().dram_bytes_at_end, 0);

  DeviceProgram leaky = program;
  for (DeviceInstr& instr : leaky.instrs) instr.release.clear();
  chip.execute(leaky, chain_inputs());
  EXPECT_EQ(chip.last_stats().dram_bytes_at_end, 2 * kTile64);  // x and relu(x) never released
}

TEST(SimulatedChip, OperandReleasedTooEarlyIsAnError) {
  DeviceProgram program = compiler::compile(chain_graph(), {});
  program.instrs[0].release.push_back(program.instrs[0].output);  // relu result dropped before exp reads it
  try {
    SimulatedChip(ChipSpec{}).execute(program, chain_inputs());
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("chip 0, op #1 exp: operand buffer"));
  }
}

TEST(SimulatedChip, ChecksInputs) {
  const DeviceProgram program = compiler::compile(chain_graph(), {});
  SimulatedChip chip(ChipSpec{});
  EXPECT_THAT([&] { chip.execute(program, {}); },
              ::testing::ThrowsMessage<RuntimeError>(HasSubstr("chip 0: missing input 'x'")));
  EXPECT_THAT(
      [&] {
        chip.execute(program, {{"x", random_normal({64, 64}, 1)}});
      },
      ::testing::ThrowsMessage<RuntimeError>(HasSubstr("input 'x' has shape [64,64]")));
}

TEST(SimulatedChip, IntegerAndPassThroughOutputs) {
  GraphBuilder g("ids");
  const ValueId ids = g.input("ids", DType::I64, {3});
  const ValueId table = g.weight("table", Tensor::from_f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  g.output("ids_out", ids);
  g.output("table_out", table);
  g.output("rows", g.op(OpKind::Embedding, {ids, table}));
  ExecutionStats stats;
  const std::vector<Tensor> out = run_device(g.finish(), {{"ids", Tensor::from_i64({3}, {2, 0, 2})}}, {}, {}, &stats);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].dtype(), DType::I64);
  EXPECT_EQ(values(out[0]), (std::vector<double>{2, 0, 2}));
  EXPECT_EQ(out[1].dtype(), DType::F32);
  EXPECT_EQ(values(out[1]), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values(out[2]), (std::vector<double>{5, 6, 1, 2, 5, 6}));
  EXPECT_EQ(stats.dram_bytes_at_end, 0);
}

TEST(SimulatedChip, RepeatedExecutionIsDeterministic) {
  const DeviceProgram program = compiler::compile(chain_graph(), {});
  SimulatedChip chip(ChipSpec{});
  const Tensor a = chip.execute(program, chain_inputs())[0];
  const Tensor b = chip.execute(program, chain_inputs())[0];
  EXPECT_EQ(values(a), values(b));
}

// linear(x, w) + conv2d(img, k) + matmul(x, m) with weights in bf16 or bfp8_b.
Graph gemm_graph() {
  GraphBuilder g("gemms");
  const ValueId x = g.input("x", DType::F32, {4, 64});
  const ValueId img = g.input("img", DType::F32, {1, 8, 6, 6});
  const ValueId w = g.weight("w", {32, 64}, Initializer::normal(0, 0.5, 11));
  const ValueId k = g.weight("k", {16, 8, 3, 3}, Initializer::normal(0, 0.5, 12));
  const ValueId m = g.weight("m", {64, 8}, Initializer::normal(0, 0.5, 13));
  g.output("linear", g.linear(x, w));
  g.output("conv", g.op(OpKind::Conv2d, {img, k}));
  g.output("matmul", g.matmul(x, m));
  return g.finish();
}

// Expected results from the weights the device actually holds (decoded) and
// bf16-rounded inputs, in f64.
std::vector<std::vector<double>> gemm_expected(const DeviceProgram& p, const NamedTensors& in) {
  auto weight = [&](const std::string& name) {
    for (const DeviceBuffer& b : p.buffers) {
      if (b.name == name) return p.weights.at(b.id).to(DType::F32).to_f32_vector();
    }
    throw std::runtime_error(name);
  };
  const std::vector<float> x = in.at("x").to(DType::BF16).to_f32_vector();
  const std::vector<float> img = in.at("img").to(DType::BF16).to_f32_vector();
  const std::vector<float> w = weight("w"), k = weight("k"), m = weight("m");
  std::vector<double> lin, conv, mm;
  for (int r = 0; r < 4; ++r) {
    for (int o = 0; o < 32; ++o) {
      double s = 0;
      for (int q = 0; q < 64; ++q) s += static_cast<double>(x[r * 64 + q]) * w[o * 64 + q];
      lin.push_back(s);
    }
    for (int o = 0; o < 8; ++o) {
      double s = 0;
      for (int q = 0; q < 64; ++q) s += static_cast<double>(x[r * 64 + q]) * m[q * 8 + o];
      mm.push_back(s);
    }
  }
  for (int o = 0; o < 16; ++o) {
    for (int yy = 0; yy < 4; ++yy) {
      for (int xx = 0; xx < 4; ++xx) {
        double s = 0;
        for (int c = 0; c < 8; ++c) {
          for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
              s += static_cast<double>(img[(c * 6 + yy + i) * 6 + xx + j]) * k[((o * 8 + c) * 3 + i) * 3 + j];
            }
          }
        }
        conv.push_back(s);
      }
    }
  }
  return {lin, conv, mm};
}

TEST(SimulatedChip, Bfp8WeightsPath) {
  const Graph graph = gemm_graph();
  const NamedTensors in = {{"x", random_normal({4, 64}, 21)}, {"img", random_normal({1, 8, 6, 6}, 22)}};
  std::vector<std::vector<double>> results[2];
  int slot = 0;
  for (DType wdt : {DType::BF16, DType::BFP8_B}) {
    SCOPED_TRACE(dtype_name(wdt));
    compiler::CompileOptions opt;
    opt.weight_dtype = wdt;
    const DeviceProgram program = compiler::compile(graph, opt);
    for (const DeviceBuffer& b : program.buffers) {
      if (b.kind == BufferKind::Weight) {
        EXPECT_EQ(b.type.dtype, wdt);
      }
    }
    SimulatedChip chip(ChipSpec{});
    const std::vector<Tensor> out = chip.execute(program, in);
    EXPECT_EQ(chip.last_stats().dram_bytes_at_end, 0);
    const auto want = gemm_expected(program, in);
    // Sums of 64-72 products of magnitude ~1: absolute slack for cancellation.
    expect_close(out[0], {4, 32}, want[0], 1e-2, 3e-2);
    expect_close(out[1], {1, 16, 4, 4}, want[1], 1e-2, 3e-2);
    expect_close(out[2], {4, 8}, want[2], 1e-2, 3e-2);
    for (const Tensor& t : out) results[slot].push_back(values(t));
    ++slot;
  }
  // bfp8_b really changes the weights: results differ, but stay close.
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NE(results[0][i], results[1][i]);
    double num = 0, den = 0;
    for (size_t j = 0; j < results[0][i].size(); ++j) {
      num += std::pow(results[0][i][j] - results[1][i][j], 2);
      den += std::pow(results[0][i][j], 2);
    }
    EXPECT_LT(std::sqrt(num / den), 0.05);
  }
}

// Two chips executing at once (as a mesh does) share only the primitive
// caches; both must produce the single-threaded result.
TEST(SimulatedChip, ConcurrentChipsAgree) {
  const Graph graph = gemm_graph();
  const DeviceProgram program = compiler::compile(graph, {});
  const NamedTensors in = {{"x", random_normal({4, 64}, 31)}, {"img", random_normal({1, 8, 6, 6}, 32)}};
  std::vector<std::vector<double>> expected;
  for (const Tensor& t : SimulatedChip(ChipSpec{}).execute(program, in)) expected.push_back(values(t));
  std::vector<std::vector<double>> got[2];
  std::vector<std::thread> threads;
  for (int c = 0; c < 2; ++c) {
    threads.emplace_back([&, c] {
      SimulatedChip chip(ChipSpec{}, c);
      for (int rep = 0; rep < 5; ++rep) {
        got[c].clear();
        for (const Tensor& t : chip.execute(program, in)) got[c].push_back(values(t));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(got[0], expected);
  EXPECT_EQ(got[1], expected);
}

// linear(I, w) = w^T exactly, so the device's bfp8_b decoding can be compared
// bit for bit with core's decode_bfp8_b, across blocks of wide dynamic range.
TEST(SimulatedChip, Bfp8DecodingMatchesCore) {
  const int64_t n = 48, k = 32;
  std::vector<float> w(static_cast<size_t>(n * k));
  Rng rng(99);
  for (float& v : w) v = static_cast<float>(rng.normal() * std::pow(10.0, rng.uniform_int(-12, 13)));
  std::vector<float> eye(static_cast<size_t>(k * k), 0.0f);
  for (int64_t i = 0; i < k; ++i) eye[static_cast<size_t>(i * k + i)] = 1.0f;
  GraphBuilder g("decode");
  const ValueId x = g.input("x", DType::F32, {k, k});
  g.output("wt", g.linear(x, g.weight("w", Tensor::from_f32({n, k}, w))));
  compiler::CompileOptions opt;
  opt.weight_dtype = DType::BFP8_B;
  const std::vector<Tensor> out = run_device(g.finish(), {{"x", Tensor::from_f32({k, k}, eye)}}, opt);
  const std::vector<float> decoded = Tensor::from_f32({n, k}, w).to(DType::BFP8_B).to_f32_vector();
  const float* got = out[0].data<float>();
  for (int64_t i = 0; i < k; ++i) {
    for (int64_t j = 0; j < n; ++j) ASSERT_EQ(got[i * n + j], decoded[static_cast<size_t>(j * k + i)]) << i << "," << j;
  }
}

// Sets an environment variable for the lifetime of the guard.
class EnvGuard {
 public:
  EnvGuard(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~EnvGuard() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(SimulatedChip, PerturbationHookChangesOnlyTheNamedOp) {
  GraphBuilder g("cnn");
  const ValueId img = g.input("img", DType::F32, {1, 4, 8, 8});
  const ValueId k = g.weight("k", {8, 4, 3, 3}, Initializer::normal(0, 0.3, 3));
  const ValueId c = g.op(OpKind::Conv2d, {img, k}, {{"padding", std::vector<int64_t>{1, 1}}});
  g.output("y", g.relu(c));
  const DeviceProgram program = compiler::compile(g.finish(), {});
  const NamedTensors in = {{"img", random_normal({1, 4, 8, 8}, 5)}};
  SimulatedChip chip(ChipSpec{});
  const std::vector<double> clean = values(chip.execute(program, in)[0]);
  std::vector<double> noisy;
  {
    EnvGuard env("MESHTEST_TEST_PERTURB_DEVICE_OP", "conv2d");
    noisy = values(chip.execute(program, in)[0]);
    EXPECT_EQ(values(chip.execute(program, in)[0]), noisy);  // deterministic
  }
  double diff = 0, norm = 0;
  for (size_t i = 0; i < clean.size(); ++i) {
    diff += std::pow(clean[i] - noisy[i], 2);
    norm += clean[i] * clean[i];
  }
  EXPECT_GT(std::sqrt(diff / norm), 0.3);
  {
    EnvGuard env("MESHTEST_TEST_PERTURB_DEVICE_OP", "softmax");  // not in this graph
    EXPECT_EQ(values(chip.execute(program, in)[0]), clean);
  }
  EXPECT_EQ(values(chip.execute(program, in)[0]), clean);
}

}  // namespace
}  // namespace meshtest::runtime
