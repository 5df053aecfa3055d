// Test-only loaders that fail on purpose, one behaviour per build (selected by
// FIXTURE_KIND): a wrong ABI version, a loader that throws while listing
// variants, and one that throws while building its model.
#include <stdexcept>

#include "core/graph_builder.h"
#include "discovery/loader_sdk.h"

namespace {

using namespace meshtest;

class BrokenLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override {
#if FIXTURE_KIND == 2
    throw std::runtime_error("cannot read variant table");
#endif
    return {"only"};
  }
  sdk::ModelInfo info(std::string_view) const override { return {"broken", "only", "generality", "test"}; }
  sdk::Model load_model(std::string_view, const sdk::LoadOptions&) const override {
    throw std::runtime_error("checkpoint file is truncated");
  }
  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions&) const override { return {}; }
};

}  // namespace

#if FIXTURE_KIND == 1
extern "C" __attribute__((visibility("default"))) uint32_t meshtest_loader_abi_version() { return 999; }
extern "C" __attribute__((visibility("default"))) meshtest::sdk::ModelLoader* meshtest_create_loader() {
  return new BrokenLoader();
}
extern "C" __attribute__((visibility("default"))) void meshtest_destroy_loader(meshtest::sdk::ModelLoader* l) {
  delete l;
}
#else
MESHTEST_EXPORT_LOADER(BrokenLoader)
#endif
