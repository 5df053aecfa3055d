// Fault-injection loader for the execution-engine tests: one tiny model whose
// variants misbehave on purpose — crash, abort, loop forever, stop
// themselves, eat memory, exit, print megabytes, throw in a phase — next to
// one that passes ("ok"). Env hooks: MESHTEST_TEST_GATE (the "gate" variant
// waits while that file exists) and MESHTEST_TEST_FLAKY_FILE (the "flaky"
// variant fails until that file exists, creating it).
// Warm workers (--cases-per-worker): the "print_pidN" variants, "flaky",
// "retain_heap300" and "fresh_blocks250" print "<variant> ran in pid <pid>" to stdout (and a line to stderr), so a
// case's captured output says which worker ran it; N orders them (the
// scheduler's guess from a trailing number: largest first, "segfault" and
// the other unnumbered variants between print_pid40 and print_pid10).
// "retain_heap300" leaves 300 MiB of freed small blocks resident in
// malloc's heap; "fresh_blocks250" (run after it: 250 < 300) then touches
// 250 MiB of new memory.
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

// Touches `bytes` in 64 KiB blocks and frees them, each pinned in malloc's
// heap by a small live block after it: the freed memory stays resident.
void retain_heap(size_t bytes) {
  constexpr size_t kBlock = 64 << 10;
  static std::vector<void*> pins;  // never freed
  std::vector<char*> blocks;
  for (size_t done = 0; done < bytes; done += kBlock) {
    blocks.push_back(static_cast<char*>(std::malloc(kBlock)));
    std::memset(blocks.back(), 1, kBlock);
    pins.push_back(std::malloc(64));
  }
  for (char* b : blocks) std::free(b);
}

// Touches `bytes` of new 16 MiB blocks (too large for the freed 64 KiB ones)
// and holds them long enough for the parent's memory check to see them.
void touch_fresh_blocks(size_t bytes) {
  constexpr size_t kBlock = 16 << 20;
  std::vector<char*> blocks;
  for (size_t done = 0; done < bytes; done += kBlock) {
    blocks.push_back(static_cast<char*>(std::malloc(kBlock)));
    std::memset(blocks.back(), 1, kBlock);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (char* b : blocks) std::free(b);
}

// Not instrumented by UBSan: in the sanitizer build the null store below must
// still be a real SIGSEGV, not a UBSan report and exit 1.
__attribute__((no_sanitize("undefined"))) void misbehave(std::string_view variant) {
  if (variant.rfind("print_pid", 0) == 0 || variant == "flaky" || variant == "retain_heap300" ||
      variant == "fresh_blocks250") {
    std::printf("%.*s ran in pid %d\n", static_cast<int>(variant.size()), variant.data(), static_cast<int>(getpid()));
    std::fprintf(stderr, "stderr of %.*s\n", static_cast<int>(variant.size()), variant.data());
  }
  if (variant == "retain_heap300") {
    retain_heap(size_t{300} << 20);
  } else if (variant == "fresh_blocks250") {
    touch_fresh_blocks(size_t{250} << 20);
  } else if (variant == "segfault") {
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
            "throw_compare",
            "print_pid60",
            "print_pid50",
            "print_pid40",
            "print_pid10",
            "print_pid5",
            "retain_heap300",
            "fresh_blocks250"};
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
