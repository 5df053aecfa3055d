// One test case of a model loader written inside a test (no discovery): the
// loader's entry and the single-device case that points at it, kept in one
// object so that pointer stays valid (neither copied nor moved).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "discovery/discovery.h"
#include "runner/collection/test_case.h"

namespace meshtest::testing {

struct LoaderCase {
  LoaderCase(std::shared_ptr<sdk::ModelLoader> model, std::string dir, const std::string& variant,
             runner::RunMode mode) {
    loader.dir = std::move(dir);
    loader.loader = std::move(model);
    loader.variants = {loader.loader->info(variant)};
    test_case.id = runner::make_test_id(loader.dir, variant, runner::Parallelism::SingleDevice, mode);
    test_case.loader = &loader;
    test_case.loader_dir = loader.dir;
    test_case.info = loader.variants[0];
    test_case.run_mode = mode;
  }
  LoaderCase(const LoaderCase&) = delete;
  LoaderCase& operator=(const LoaderCase&) = delete;

  discovery::DiscoveredLoader loader;
  runner::TestCase test_case;
};

}  // namespace meshtest::testing
