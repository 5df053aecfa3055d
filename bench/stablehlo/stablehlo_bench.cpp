// How fast StableHLO text is read: for each file given on the command line,
// parsing alone (MLIR text -> syntax tree) and parsing + importing (-> a
// meshtest graph), as Google Benchmark timings with bytes per second.
// Usage: stablehlo_bench [benchmark flags] FILE.mlir...
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontends/stablehlo/mlir_parser.h"
#include "frontends/stablehlo/stablehlo_import.h"

namespace {

using meshtest::frontends::stablehlo::import_stablehlo;
using meshtest::frontends::stablehlo::parse_mlir;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void parse_only(benchmark::State& state, const std::string& path, const std::string& text) {
  for (auto _ : state) benchmark::DoNotOptimize(parse_mlir(text, path));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

void parse_and_import(benchmark::State& state, const std::string& path, const std::string& text) {
  try {
    import_stablehlo(parse_mlir(text, path), path);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(import_stablehlo(parse_mlir(text, path), path));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (argc < 2) {
    std::cerr << "usage: stablehlo_bench [benchmark flags] FILE.mlir...\n";
    return 2;
  }
  std::vector<std::string> texts;
  texts.reserve(static_cast<size_t>(argc));
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    texts.push_back(read_file(path));
    const std::string& text = texts.back();
    const std::string name = std::filesystem::path(path).filename().string();
    benchmark::RegisterBenchmark(("parse/" + name).c_str(), parse_only, path, text)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("parse+import/" + name).c_str(), parse_and_import, path, text)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
