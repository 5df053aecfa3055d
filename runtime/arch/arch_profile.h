// Arch profiles: the multi-chip systems meshtest targets, loaded from YAML
// data (runtime/arch/profiles.yaml): chips, mesh shape, per-chip DRAM, L1 per
// core, core grid and dtypes. `--arch NAME` picks one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "runtime/device/chip_spec.h"

namespace meshtest::runtime {

struct ArchProfile {
  std::string name;
  int chips = 1;
  std::vector<int64_t> mesh_shape = {1, 1};  // row-major chip ids; product == chips
  ChipSpec chip;                             // every chip of the system is alike
  std::vector<DType> dtypes;
  std::string source;  // where the figures come from

  std::string mesh_text() const;  // "2x4"
};

// The profiles file shipped with meshtest ($MESHTEST_ARCH_PROFILES overrides;
// an installed meshtest finds PREFIX/share/meshtest/arch_profiles.yaml).
std::string default_arch_profiles_path();

// Every profile of a YAML file; throws ParseError "file:line:col: ..." on a
// missing/unknown field, a bad value, or a mesh whose product is not `chips`.
std::vector<ArchProfile> load_arch_profiles(const std::string& path);
std::vector<ArchProfile> parse_arch_profiles(const std::string& yaml_text, const std::string& file_name);

// The profile named `name` from the default file; throws ParseError naming
// the known profiles when there is none.
ArchProfile arch_profile(const std::string& name);

}  // namespace meshtest::runtime
