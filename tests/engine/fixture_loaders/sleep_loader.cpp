// Sleeping loader for the budget tests (run --budget, collect --estimate):
// each variant "msN" sleeps N milliseconds while its model loads, then runs a
// tiny linear model that passes. Known durations stand in for a nightly's
// minutes, scaled down to seconds.
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/loader_sdk.h"

namespace {

using namespace meshtest;

// Milliseconds of a variant "ms<N>".
int sleep_milliseconds(std::string_view variant) { return std::stoi(std::string(variant.substr(2))); }

class SleepLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override {
    return {"ms1000", "ms800", "ms700", "ms600", "ms500", "ms450", "ms400", "ms300", "ms200", "ms100"};
  }
  sdk::ModelInfo info(std::string_view v) const override { return {"sleepy", std::string(v), "generality", "test"}; }
  sdk::Model load_model(std::string_view v, const sdk::LoadOptions&) const override {
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_milliseconds(v)));
    GraphBuilder b("sleepy");
    ValueId x = b.input("x", DType::F32, {1, 8});
    ValueId w = b.weight("w", {8, 8}, Initializer::normal(0, 0.3, hash_seed("sleepy/w")));
    b.output("y", b.linear(x, w));
    return {b.finish()};
  }
  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions&) const override {
    return {{"x", random_normal({1, 8}, 7)}};
  }
};

}  // namespace

MESHTEST_EXPORT_LOADER(SleepLoader)
