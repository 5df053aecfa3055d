// Benchmark loader for the execution engine: 1,000 variants of a trivial
// model (one 8x8 linear layer), so a run measures the harness, not the model.
#include <cstdio>

#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/loader_sdk.h"

namespace {

using namespace meshtest;

class TrivialLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (int i = 0; i < 1000; ++i) {
      char name[16];
      std::snprintf(name, sizeof name, "c%04d", i);
      names.emplace_back(name);
    }
    return names;
  }
  sdk::ModelInfo info(std::string_view v) const override { return {"trivial", std::string(v), "generality", "bench"}; }
  sdk::Model load_model(std::string_view, const sdk::LoadOptions&) const override {
    GraphBuilder b("trivial");
    ValueId x = b.input("x", DType::F32, {1, 8});
    ValueId w = b.weight("w", {8, 8}, Initializer::normal(0, 0.3, hash_seed("trivial/w")));
    b.output("y", b.linear(x, w));
    return {b.finish()};
  }
  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions&) const override {
    return {{"x", random_normal({1, 8}, 7)}};
  }
};

}  // namespace

MESHTEST_EXPORT_LOADER(TrivialLoader)
