// The memory probe of streamed_weights_test: `probe stream|eager BUDGET_MB`
// limits this process's data segment (RLIMIT_DATA: heap and private
// mappings) to BUDGET_MB above what it holds once warmed up, then runs the
// golden and one simulated chip on a deep model whose f32 weights (768 MB)
// exceed that limit, with its weights streamed or loaded first as the
// pipeline does without streaming. Exit 0: ran; 3: a host allocation failed;
// 1: anything else; prints the peak RSS.
#include <malloc.h>
#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <string>

#include "backend/simulated_backend.h"
#include "core/error.h"
#include "core/rng.h"
#include "runtime/reference/reference_executor.h"
#include "tests/runtime_mesh/deep_mlp.h"

namespace {

using namespace meshtest;

constexpr int kLayers = 48;
constexpr int64_t kWidth = 2048, kTokens = 4;

int64_t status_kib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1));
  }
  return 0;
}

void run(int layers, bool stream) {
  Graph g = testing::deep_mlp(layers, kWidth, kTokens);
  if (!stream) g.materialize_weights();
  const std::map<std::string, Tensor> inputs = {{"x", random_normal({kTokens, kWidth}, 7)}};
  const std::vector<Tensor> golden = runtime::run_reference(g, inputs);
  auto simulated = backend::make_simulated_backend(runtime::ChipSpec{}, 1);
  backend::CompileRequest request;
  request.stream_weights = stream;
  auto exe = simulated->compile(g, request);
  backend::MemoryStats stats;
  const std::vector<Tensor> device = simulated->execute(*exe, inputs, stats);
  if (device.size() != golden.size()) throw Error("output count differs");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " stream|eager BUDGET_MB\n";
    return 1;
  }
  const bool stream = std::string(argv[1]) == "stream";
  const int64_t budget = std::stoll(argv[2]) << 20;
  // One malloc arena: glibc reserves 64 MB of address space (counted in
  // VmData) for each arena a new thread opens, and on a loaded machine the
  // thread pools may open one after the warm-up, which is not the model's
  // memory.
  mallopt(M_ARENA_MAX, 1);
  try {
    run(2, stream);  // warm up: thread pools, allocator arenas
    rlimit limit{};
    limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(status_kib("VmData") * 1024 + budget);
    if (setrlimit(RLIMIT_DATA, &limit) != 0) {
      std::perror("setrlimit");
      return 1;
    }
    run(kLayers, stream);
  } catch (const std::bad_alloc& e) {
    std::cerr << "host allocation failed: " << e.what() << "\n";
    return 3;
  } catch (const OutOfMemoryError& e) {
    std::cerr << e.what() << "\n";
    return std::string(e.what()).find("host allocation") != std::string::npos ? 3 : 1;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  std::cout << "peak RSS " << status_kib("VmHWM") / 1024 << " MiB\n";
  return 0;
}
