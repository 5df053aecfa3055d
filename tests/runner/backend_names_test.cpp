// config/backend_names.h lists the backends test_config may name without
// seeing the runner's registry: every backend the registry has (in this
// build) must be in that list, and the default must be the registry's.
#include "config/backend_names.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "runner/pipeline/backends.h"

namespace meshtest::runner {
namespace {

TEST(BackendNames, ConfigKnowsEveryRegisteredBackend) {
  const std::vector<std::string>& known = config::known_backend_names();
  for (const std::string& name : available_backends().names()) {
    EXPECT_NE(std::find(known.begin(), known.end(), name), known.end())
        << "backend '" << name << "' is registered but config/backend_names.cpp does not list it";
    EXPECT_EQ(config::unknown_backend_message(name), std::nullopt);
  }
  EXPECT_EQ(config::kDefaultBackendName, backend::kDefaultBackend);
  EXPECT_EQ(known.front(), config::kDefaultBackendName);
}

TEST(BackendNames, ConfigListsOnlyBackendsMeshtestHas) {
  // pjrt is listed even in a build without the PJRT header (a YAML file loads
  // the same on every build); nothing else may be listed that is not registered.
  for (const std::string& name : config::known_backend_names()) {
    if (name == "pjrt") continue;
    EXPECT_TRUE(available_backends().contains(name)) << name;
  }
#ifdef MESHTEST_HAVE_PJRT
  EXPECT_EQ(config::known_backend_names(), available_backends().names());
#endif
}

}  // namespace
}  // namespace meshtest::runner
