// Fixture loader of the bad-input catalogue (docs/bad-inputs.md): models that
// are wrong in ways a loader cannot see — NaN outputs, a weight larger than
// the chip's DRAM, a declared tensor over the per-tensor host limit — next to
// one that is fine ("ok", whose inputs $MESHTEST_INPUTS_DIR may replace).
#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/loader_sdk.h"

namespace {

using namespace meshtest;

class BadModelLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override { return {"ok", "nan_output", "device_oom", "huge_weight"}; }
  sdk::ModelInfo info(std::string_view v) const override { return {"bad", std::string(v), "generality", "test"}; }
  sdk::Model load_model(std::string_view v, const sdk::LoadOptions&) const override {
    GraphBuilder b("bad");
    const ValueId x = b.input("x", DType::F32, {1, 8});
    if (v == "nan_output") {  // log of a negative number on both sides
      b.output("y", b.op(OpKind::Log, {b.op(OpKind::Neg, {b.op(OpKind::Exp, {x})})}));
    } else if (v == "device_oom") {  // 16 GiB of weights: more than any chip's DRAM
      const ValueId w = b.weight("w", {8, 512L * 1024 * 1024}, Initializer::constant(0));
      b.output("y", b.op(OpKind::Matmul, {x, w}));
    } else if (v == "huge_weight") {  // 4 TiB: over the per-tensor host limit
      const ValueId w = b.weight("w", {8, 128L * 1024 * 1024 * 1024}, Initializer::constant(0));
      b.output("y", b.op(OpKind::Matmul, {x, w}));
    } else {
      const ValueId w = b.weight("w", {8, 8}, Initializer::normal(0, 0.3, hash_seed("bad/w")));
      b.output("y", b.linear(x, w));
    }
    return {b.finish()};
  }
  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions&) const override {
    return {{"x", random_normal({1, 8}, 7)}};
  }
};

}  // namespace

MESHTEST_EXPORT_LOADER(BadModelLoader)
