// Fault-injection loader for the execution-engine tests: one tiny model whose
// variants misbehave on purpose — crash, abort, loop forever, stop
// themselves, eat memory, exit, print megabytes, throw in a phase — next to
// one that passes ("ok"). Env hooks: MESHTEST_TEST_GATE (the "gate" variant
// waits while that file exists) and MESHTEST_TEST_FLAKY_FILE (the "flaky"
// variant fails until that file exists, creating it).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/loader_sdk.h"

namespace {

using namespace meshtest;

bool file_exists(const char* env) {
  const char* path = std::getenv(env);
  return path != nullptr && std::filesystem::exists(path);
}

// Not instrumented by UBSan: in the sanitizer build the null store below must
// still be a real SIGSEGV, not a UBSan report and exit 1.
__attribute__((no_sanitize("undefined"))) void misbehave(std::string_view variant) {
  if (variant == "segfault") {
    volatile int* p = nullptr;
    *p = 1;
  } else if (variant == "abort") {
    std::abort();
  } else if (variant == "infinite_loop") {
    volatile uint64_t spins = 0;
    for (;;) spins = spins + 1;
  } else if (variant == "hang") {
    raise(SIGSTOP);
  } else if (variant == "oom") {
    std::vector<char*> blocks;
    for (;;) {
      char* block = static_cast<char*>(std::malloc(16 << 20));
      if (block == nullptr) throw std::bad_alloc();
      std::memset(block, 1, 16 << 20);
      blocks.push_back(block);
    }
  } else if (variant == "exit0") {
    std::exit(0);
  } else if (variant == "big_output") {
    const std::string line(99, 'x');
    for (int i = 0; i < 40000; ++i) std::printf("%s\n", line.c_str());  // 4 MB
    std::fflush(stdout);
  } else if (variant == "gate") {
    while (file_exists("MESHTEST_TEST_GATE")) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  } else if (variant == "flaky") {
    if (std::getenv("MESHTEST_TEST_FLAKY_FILE") != nullptr && !file_exists("MESHTEST_TEST_FLAKY_FILE")) {
      std::ofstream(std::getenv("MESHTEST_TEST_FLAKY_FILE")) << "failed once\n";
      throw std::runtime_error("flaky: fails the first time");
    }
  } else if (variant == "throw_load_model") {
    throw std::runtime_error("checkpoint is corrupt");
  }
}

class FaultLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override {
    return {"ok",
            "segfault",
            "abort",
            "infinite_loop",
            "hang",
            "oom",
            "exit0",
            "big_output",
            "gate",
            "flaky",
            "throw_load_model",
            "throw_load_inputs",
            "throw_golden",
            "throw_compile",  // these three fail through MESHTEST_TEST_FAIL_PHASE (runner/pipeline/test_fault_hook.h)
            "throw_execute",
            "throw_compare"};
  }
  sdk::ModelInfo info(std::string_view v) const override { return {"faults", std::string(v), "generality", "test"}; }
  sdk::Model load_model(std::string_view v, const sdk::LoadOptions&) const override {
    misbehave(v);
    GraphBuilder b("faults");
    if (v == "throw_golden") {  // an out-of-range embedding id fails the CPU reference
      ValueId ids = b.input("ids", DType::I64, {1, 2});
      ValueId table = b.weight("table", {4, 8}, Initializer::normal(0, 1, hash_seed("faults/table")));
      b.output("y", b.op(OpKind::Embedding, {ids, table}));
      return {b.finish()};
    }
    ValueId x = b.input("x", DType::F32, {1, 8});
    ValueId w = b.weight("w", {8, 8}, Initializer::normal(0, 0.3, hash_seed("faults/w")));
    b.output("y", b.linear(x, w));
    return {b.finish()};
  }
  sdk::Inputs load_inputs(std::string_view v, const sdk::LoadOptions&) const override {
    if (v == "throw_load_inputs") throw std::runtime_error("input file missing");
    if (v == "throw_golden") return {{"ids", Tensor::from_i64({1, 2}, {0, 99})}};
    return {{"x", random_normal({1, 8}, 7)}};
  }
};

}  // namespace

MESHTEST_EXPORT_LOADER(FaultLoader)
