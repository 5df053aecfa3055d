// arch_overrides: resolved per field and shallow for the target arch, with
// the sources of replaced fields pointing into the override block.
#include "config/arch_overrides.h"

#include <gtest/gtest.h>

#include "config_fixture.h"

namespace meshtest::config {
namespace {

class ArchOverrides : public ConfigDirTest {
 protected:
  TestEntry entry() {
    write("a.yaml", R"(test_config:
  a-single_device-inference:
    status: EXPECTED_PASSING
    required_pcc: 0.99
    markers: [push, fast]
    arch_overrides:
      p150:
        required_pcc: 0.95
        markers: [slow]
      n300:
        status: KNOWN_FAILURE_XFAIL
        reason: "hangs on two chips"
)");
    const TestConfig c = load();
    EXPECT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
    return *c.find("a-single_device-inference");
  }
};

TEST_F(ArchOverrides, OnlyTheTargetArchApplies) {
  const TestEntry e = entry();
  ASSERT_EQ(e.arch_overrides.size(), 2u);
  const TestEntry n150 = resolve_for_arch(e, "n150");
  EXPECT_DOUBLE_EQ(*n150.required_pcc, 0.99);
  EXPECT_EQ(n150.status, TestStatus::ExpectedPassing);
  const TestEntry n300 = resolve_for_arch(e, "n300");
  EXPECT_EQ(n300.status, TestStatus::KnownFailureXfail);
  EXPECT_EQ(n300.reason, "hangs on two chips");
  EXPECT_DOUBLE_EQ(*n300.required_pcc, 0.99);
}

TEST_F(ArchOverrides, FieldByFieldAndShallow) {
  const TestEntry p150 = resolve_for_arch(entry(), "p150");
  EXPECT_DOUBLE_EQ(*p150.required_pcc, 0.95);
  EXPECT_EQ(p150.status, TestStatus::ExpectedPassing);           // not overridden: kept
  EXPECT_EQ(p150.markers, std::vector<std::string>{"slow"});     // a list replaces the list
}

TEST_F(ArchOverrides, SourcesPointIntoTheOverride) {
  const TestEntry p150 = resolve_for_arch(entry(), "p150");
  EXPECT_EQ(p150.sources.at("required_pcc").to_string(), path("a.yaml") + ":8:9");
  EXPECT_EQ(p150.sources.at("status").to_string(), path("a.yaml") + ":3:5");
  EXPECT_EQ(p150.sources.count("reason"), 0u);
}

}  // namespace
}  // namespace meshtest::config
