// Arch profiles: the shipped file has every known arch with consistent
// figures, and malformed profiles fail with file:line:column.
#include <gtest/gtest.h>

#include "config/arch_names.h"
#include "core/error.h"
#include "runtime/arch/arch_profile.h"

namespace meshtest::runtime {
namespace {

TEST(ArchProfile, ShipsEveryKnownArch) {
  const std::vector<ArchProfile> all = load_arch_profiles(default_arch_profiles_path());
  for (const std::string& name : config::known_arch_names()) {
    SCOPED_TRACE(name);
    const ArchProfile p = arch_profile(name);
    EXPECT_EQ(p.chips, p.mesh_shape[0] * p.mesh_shape[1]);
    EXPECT_GT(p.chip.dram_bytes, 0);
    EXPECT_FALSE(p.source.empty());
  }
  EXPECT_EQ(all.size(), config::known_arch_names().size());
}

TEST(ArchProfile, PublishedFigures) {
  const ArchProfile n150 = arch_profile("n150");
  EXPECT_EQ(n150.chips, 1);
  EXPECT_EQ(n150.chip.dram_bytes, 12LL << 30);
  EXPECT_EQ(n150.chip.core_rows * n150.chip.core_cols, 72);
  const ArchProfile llmbox = arch_profile("n300-llmbox");
  EXPECT_EQ(llmbox.chips, 8);
  EXPECT_EQ(llmbox.mesh_text(), "2x4");
  EXPECT_EQ(arch_profile("galaxy-wh-6u").mesh_text(), "4x8");
  EXPECT_EQ(arch_profile("n300").mesh_text(), "1x2");
  EXPECT_GT(arch_profile("p150").chip.dram_bytes, n150.chip.dram_bytes);
  EXPECT_GT(arch_profile("p150").chip.core_rows * arch_profile("p150").chip.core_cols, 72);
  EXPECT_EQ(n150.chip.dram_bytes, ChipSpec{}.dram_bytes);
  EXPECT_EQ(n150.chip.l1_bytes_per_core, ChipSpec{}.l1_bytes_per_core);
}

TEST(ArchProfile, UnknownArchNamesTheProfiles) {
  try {
    arch_profile("n151");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("no arch profile 'n151'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("n300-llmbox"), std::string::npos);
  }
}

std::string error_of(const std::string& yaml) {
  try {
    parse_arch_profiles(yaml, "p.yaml");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

const char* kGood = R"(profiles:
  a:
    chips: 2
    mesh: [1, 2]
    dram_bytes: 1024
    l1_bytes_per_core: 64
    core_grid: [2, 2]
    dtypes: [bf16]
    perf: {clock_ghz: 1, tflops_lofi: 4, tflops_bfp8: 2, tflops_bf16: 1, dram_gb_per_s: 8, eth_gb_per_s: 1}
    source: "test"
)";

TEST(ArchProfile, MalformedProfilesNameTheirPosition) {
  EXPECT_EQ(error_of(kGood), "");
  std::string bad_mesh = kGood;
  bad_mesh.replace(bad_mesh.find("[1, 2]"), 6, "[2, 2]");
  EXPECT_EQ(error_of(bad_mesh), "p.yaml:4:11: profile 'a': mesh 2x2 does not hold 2 chips");
  std::string unknown = std::string(kGood) + "    colour: red\n";
  EXPECT_EQ(error_of(unknown), "p.yaml:11:5: profile 'a': unknown field 'colour'");
  std::string negative = kGood;
  negative.replace(negative.find("1024"), 4, "-1");
  EXPECT_EQ(error_of(negative), "p.yaml:5:17: dram_bytes must be positive, got -1");
  std::string dtype = kGood;
  dtype.replace(dtype.find("[bf16]"), 6, "[bf17]");
  EXPECT_NE(error_of(dtype).find("p.yaml:8:14: dtypes:"), std::string::npos);
  std::string missing = kGood;
  missing.erase(missing.find("    source"));
  EXPECT_EQ(error_of(missing), "p.yaml:3:5: profile 'a': missing field 'source'");
  std::string no_clock = kGood;
  no_clock.erase(no_clock.find("clock_ghz: 1, "), 14);
  EXPECT_EQ(error_of(no_clock), "p.yaml:9:11: profile 'a': perf: missing field 'clock_ghz'");
  std::string zero = kGood;
  zero.replace(zero.find("dram_gb_per_s: 8"), 16, "dram_gb_per_s: 0");
  EXPECT_EQ(error_of(zero), "p.yaml:9:89: perf.dram_gb_per_s must be positive, got 0");
  std::string extra = kGood;
  extra.replace(extra.find("eth_gb_per_s: 1"), 15, "eth_gb_per_s: 1, colour: 2");
  EXPECT_EQ(error_of(extra), "p.yaml:9:109: profile 'a': perf: unknown field 'colour'");
}

TEST(ArchProfile, ShippedProfilesCarryPublishedPerfFigures) {
  // Per chip: an n300 card's 131 TFLOPS FP16 is two chips of 65.5.
  EXPECT_DOUBLE_EQ(arch_profile("n150").chip.perf.tflops_bf16, 74);
  EXPECT_DOUBLE_EQ(arch_profile("n300").chip.perf.tflops_bf16, 65.5);
  EXPECT_DOUBLE_EQ(arch_profile("n300-llmbox").chip.perf.dram_gb_per_s, 288);
  EXPECT_DOUBLE_EQ(arch_profile("p150").chip.perf.clock_ghz, 1.35);
}

}  // namespace
}  // namespace meshtest::runtime
