// The conformance suite every registered backend must pass (each test runs
// once per name in builtin_backends()): a small graph compiles and executes
// close to the CPU reference with its memory figures filled and nothing
// leaked, the 1x1 mesh gives exactly the single-chip result, compile errors
// are CompileErrors, a second compile of the same graph is a cache hit, and
// dumps arrive as text. The registry itself: unknown names list the known.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "backend/registry.h"
#include "runner/pipeline/backends.h"
#include "comparators/metrics.h"
#include "core/error.h"
#include "core/graph_builder.h"
#include "core/rng.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::backend {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kTokens = 8, kHidden = 32;

// x -> linear(w, b) -> relu
Graph small_graph() {
  GraphBuilder g("conformance");
  const ValueId x = g.input("x", DType::F32, {kTokens, kHidden});
  const ValueId w = g.weight("w", {kHidden, kHidden}, Initializer::normal(0, 0.2, 1));
  const ValueId b = g.weight("b", {kHidden}, Initializer::normal(0, 0.2, 2));
  g.output("y", g.op(OpKind::Relu, {g.linear(x, w, b)}));
  return g.finish();
}

std::map<std::string, Tensor> small_inputs() { return {{"x", random_normal({kTokens, kHidden}, 3)}}; }

struct Executed {
  std::vector<Tensor> outputs;
  MemoryStats stats;
  CompileInfo info;
};

class BackendConformance : public testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Backend> create(const std::string& cache_dir = "") const {
    BackendConfig config;
    config.chips = 2;
    config.cache_dir = cache_dir;
    return runner::available_backends().create(GetParam(), config);
  }
  Executed run(Backend& backend, const CompileRequest& request = {}) const {
    Executed r;
    auto exe = backend.compile(small_graph(), request);
    r.info = exe->info();
    r.outputs = backend.execute(*exe, small_inputs(), r.stats);
    return r;
  }
};

TEST_P(BackendConformance, NamesItselfAndSpeaksThisApiVersion) {
  const auto backend = create();
  EXPECT_EQ(backend->name(), GetParam());
  EXPECT_EQ(backend->api_version(), kBackendApiVersion);
}

TEST_P(BackendConformance, MatchesTheReference) {
  const auto backend = create();
  const Executed r = run(*backend);
  const std::vector<Tensor> golden = runtime::run_reference(small_graph(), small_inputs());
  ASSERT_EQ(r.outputs.size(), golden.size());
  EXPECT_EQ(r.outputs[0].shape(), golden[0].shape());
  const comparators::OutputMetrics m = comparators::compare_tensors("y", r.outputs[0], golden[0], {});
  EXPECT_TRUE(m.passed) << m.failure;
  EXPECT_GT(m.pcc, 0.99);
}

TEST_P(BackendConformance, FillsMemoryFiguresAndLeaksNothing) {
  const auto backend = create();
  const Executed r = run(*backend);
  EXPECT_GT(r.info.planned_peak_dram_bytes, 0);
  EXPECT_GT(r.info.device_ops, 0);
  EXPECT_EQ(r.info.mesh, "1x1");
  EXPECT_GT(r.stats.peak_dram_bytes, 0);
  EXPECT_GT(r.stats.ops_executed, 0);
  ASSERT_EQ(r.stats.per_chip_peak_dram_bytes.size(), 1u);  // one chip: the 1x1 mesh
  EXPECT_EQ(r.stats.per_chip_peak_dram_bytes[0], r.stats.peak_dram_bytes);
  EXPECT_EQ(r.stats.device_bytes_leaked, 0);
}

TEST_P(BackendConformance, OneByOneMeshEqualsOneChip) {
  const auto backend = create();
  const Executed single = run(*backend);
  auto request = std::make_shared<ShardingRequest>();
  request->mesh = {{1, 1}, {"batch", "model"}};
  CompileRequest on_mesh;
  on_mesh.sharding = request;
  const Executed mesh = run(*backend, on_mesh);
  EXPECT_EQ(mesh.info.mesh, "1x1");
  EXPECT_EQ(mesh.stats.collectives_executed, 0);
  EXPECT_EQ(mesh.stats.bytes_moved_between_chips, 0);
  EXPECT_EQ(mesh.stats.peak_dram_bytes, single.stats.peak_dram_bytes);
  ASSERT_EQ(mesh.outputs.size(), single.outputs.size());
  ASSERT_EQ(mesh.outputs[0].nbytes(), single.outputs[0].nbytes());
  EXPECT_EQ(std::memcmp(mesh.outputs[0].raw_data(), single.outputs[0].raw_data(), single.outputs[0].nbytes()), 0);
}

TEST_P(BackendConformance, CompileErrorsAreCompileErrors) {
  const auto backend = create();
  CompileRequest unknown_setting;  // a device setting the backend cannot take
  unknown_setting.settings.math_fidelity = "HiFi9";
  EXPECT_THROW(backend->compile(small_graph(), unknown_setting), CompileError);
  auto too_large = std::make_shared<ShardingRequest>();
  too_large->mesh = {{1, 8}, {"batch", "model"}};  // the system has 2 chips
  CompileRequest request;
  request.sharding = too_large;
  EXPECT_THROW(backend->compile(small_graph(), request), CompileError);
}

TEST_P(BackendConformance, SecondCompileIsACacheHit) {
  const fs::path dir = fs::temp_directory_path() / ("meshtest-conformance-" + GetParam() + "-" +
                                                   std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(dir);
  const auto backend = create(dir.string());
  const Executed first = run(*backend);
  const Executed second = run(*backend);
  EXPECT_FALSE(first.info.cache_hit);
  EXPECT_TRUE(second.info.cache_hit);
  EXPECT_TRUE(second.info.cache_warning.empty()) << second.info.cache_warning;
  EXPECT_EQ(second.info.device_ops, first.info.device_ops);
  ASSERT_EQ(second.outputs[0].nbytes(), first.outputs[0].nbytes());
  EXPECT_EQ(std::memcmp(second.outputs[0].raw_data(), first.outputs[0].raw_data(), first.outputs[0].nbytes()), 0);
  fs::remove_all(dir);
}

TEST_P(BackendConformance, DumpsEveryStageAsText) {
  const auto backend = create();
  std::vector<std::string> stages;
  std::string last;
  CompileRequest request;
  request.dump = [&](std::string_view stage, const std::string& text) {
    stages.emplace_back(stage);
    last = text;
  };
  backend->compile(small_graph(), request);
  ASSERT_FALSE(stages.empty());
  EXPECT_FALSE(last.empty());
}

// Every in-process backend (pjrt drives a plugin: tests/pjrt checks it through meshtest's own plugin).
INSTANTIATE_TEST_SUITE_P(EveryBackend, BackendConformance, testing::Values(std::string(kDefaultBackend)),
                         [](const testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(BackendRegistry, UnknownNameListsTheKnownOnes) {
  try {
    runner::available_backends().create("no-such-chip", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unknown backend 'no-such-chip' (known: simulated", 0), 0u) << e.what();
  }
}

TEST(BackendRegistry, ANameIsRegisteredOnce) {
  BackendRegistry registry;
  registry.add("a", [](const BackendConfig&) { return std::unique_ptr<Backend>(); });
  EXPECT_TRUE(registry.contains("a"));
  EXPECT_FALSE(registry.contains("b"));
  EXPECT_THROW(registry.add("a", [](const BackendConfig&) { return std::unique_ptr<Backend>(); }), Error);
  EXPECT_EQ(registry.names(), std::vector<std::string>{"a"});
}

}  // namespace
}  // namespace meshtest::backend
