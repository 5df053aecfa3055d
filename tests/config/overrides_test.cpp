// arch_overrides, backend_overrides and emitc_overrides: resolved per field
// and shallow for the target arch, backend and --emitc (the entry, then the
// arch's block, then the backend's, then emitc's), with the sources of
// replaced fields pointing into the block.
#include "config/overrides.h"

#include <gtest/gtest.h>

#include "config_fixture.h"

namespace meshtest::config {
namespace {

class Overrides : public ConfigDirTest {
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
    backend_overrides:
      pjrt:
        status: KNOWN_FAILURE_XFAIL
        reason: "plugin lacks the fused op"
        required_pcc: 0.9
    emitc_overrides:
      status: KNOWN_FAILURE_XFAIL
      reason: "generated code lacks the op"
)");
    const TestConfig c = load();
    EXPECT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
    return *c.find("a-single_device-inference");
  }
};

TEST_F(Overrides, OnlyTheTargetArchApplies) {
  const TestEntry e = entry();
  ASSERT_EQ(e.arch_overrides.size(), 2u);
  const TestEntry n150 = resolve_overrides(e, {"n150"});
  EXPECT_DOUBLE_EQ(*n150.required_pcc, 0.99);
  EXPECT_EQ(n150.status, TestStatus::ExpectedPassing);
  const TestEntry n300 = resolve_overrides(e, {"n300"});
  EXPECT_EQ(n300.status, TestStatus::KnownFailureXfail);
  EXPECT_EQ(n300.reason, "hangs on two chips");
  EXPECT_DOUBLE_EQ(*n300.required_pcc, 0.99);
}

TEST_F(Overrides, FieldByFieldAndShallow) {
  const TestEntry p150 = resolve_overrides(entry(), {"p150"});
  EXPECT_DOUBLE_EQ(*p150.required_pcc, 0.95);
  EXPECT_EQ(p150.status, TestStatus::ExpectedPassing);           // not overridden: kept
  EXPECT_EQ(p150.markers, std::vector<std::string>{"slow"});     // a list replaces the list
}

TEST_F(Overrides, SourcesPointIntoTheOverride) {
  const TestEntry e = entry();
  const TestEntry p150 = resolve_overrides(e, {"p150"});
  EXPECT_EQ(p150.sources.at("required_pcc").to_string(), path("a.yaml") + ":8:9");
  EXPECT_EQ(p150.sources.at("status").to_string(), path("a.yaml") + ":3:5");
  EXPECT_EQ(p150.sources.count("reason"), 0u);
  EXPECT_EQ(override_origin(e, {"p150"}, "required_pcc"), "arch_overrides.p150");
  EXPECT_EQ(override_origin(e, {"p150"}, "status"), std::nullopt);
}

TEST_F(Overrides, OnlyTheTargetBackendApplies) {
  const TestEntry e = entry();
  ASSERT_EQ(e.backend_overrides.size(), 1u);
  EXPECT_EQ(e.backend_overrides[0].name, "pjrt");
  EXPECT_EQ(e.backend_overrides[0].defined_at.to_string(), path("a.yaml") + ":14:7");
  const TestEntry simulated = resolve_overrides(e, {"n150", "simulated"});
  EXPECT_EQ(simulated.status, TestStatus::ExpectedPassing);
  EXPECT_EQ(simulated.reason, "");
  const TestEntry pjrt = resolve_overrides(e, {"n150", "pjrt"});
  EXPECT_EQ(pjrt.status, TestStatus::KnownFailureXfail);
  EXPECT_EQ(pjrt.reason, "plugin lacks the fused op");
  EXPECT_EQ(pjrt.markers, (std::vector<std::string>{"push", "fast"}));  // not in the block: the entry's own
  EXPECT_EQ(pjrt.sources.at("status").to_string(), path("a.yaml") + ":15:9");
  EXPECT_EQ(override_origin(e, {"n150", "pjrt"}, "status"), "backend_overrides.pjrt");
  EXPECT_EQ(override_origin(e, {"n150", "simulated"}, "status"), std::nullopt);
}

TEST_F(Overrides, TheBackendBlockAppliesAfterTheArchBlock) {
  const TestEntry e = entry();
  // n300 sets status and reason, pjrt sets them too: pjrt wins; p150's markers stay.
  const TestEntry n300_pjrt = resolve_overrides(e, {"n300", "pjrt"});
  EXPECT_EQ(n300_pjrt.reason, "plugin lacks the fused op");
  EXPECT_EQ(override_origin(e, {"n300", "pjrt"}, "reason"), "backend_overrides.pjrt");
  const TestEntry p150_pjrt = resolve_overrides(e, {"p150", "pjrt"});
  EXPECT_DOUBLE_EQ(*p150_pjrt.required_pcc, 0.9);  // both set it: the backend's
  EXPECT_EQ(p150_pjrt.sources.at("required_pcc").to_string(), path("a.yaml") + ":17:9");
  EXPECT_EQ(override_origin(e, {"p150", "pjrt"}, "required_pcc"), "backend_overrides.pjrt");
  EXPECT_EQ(p150_pjrt.markers, std::vector<std::string>{"slow"});  // only the arch sets it: the arch's
  EXPECT_EQ(override_origin(e, {"p150", "pjrt"}, "markers"), "arch_overrides.p150");
}

// pjrt:<platform> applies only on that platform, after the block of pjrt.
TEST_F(Overrides, APlatformBlockAppliesAfterItsBackendsBlock) {
  write("p.yaml", R"(test_config:
  a-single_device-inference:
    status: EXPECTED_PASSING
    backend_overrides:
      pjrt:cuda:
        status: KNOWN_FAILURE_XFAIL
        reason: "cuda's plugin lacks the op"
      pjrt:
        required_pcc: 0.9
        reason: "any plugin"
)");
  const TestConfig c = load();
  ASSERT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  const TestEntry& e = *c.find("a-single_device-inference");
  const TestEntry cuda = resolve_overrides(e, {"n150", "pjrt:cuda"});
  EXPECT_EQ(cuda.status, TestStatus::KnownFailureXfail);
  EXPECT_EQ(cuda.reason, "cuda's plugin lacks the op");  // written first, applied last
  EXPECT_DOUBLE_EQ(*cuda.required_pcc, 0.9);
  EXPECT_EQ(override_origin(e, {"n150", "pjrt:cuda"}, "reason"), "backend_overrides.pjrt:cuda");
  EXPECT_EQ(override_origin(e, {"n150", "pjrt:cuda"}, "required_pcc"), "backend_overrides.pjrt");
  const TestEntry cpu = resolve_overrides(e, {"n150", "pjrt:cpu"});
  EXPECT_EQ(cpu.status, TestStatus::ExpectedPassing);
  EXPECT_EQ(cpu.reason, "any plugin");
  const TestEntry unprobed = resolve_overrides(e, {"n150", "pjrt"});
  EXPECT_EQ(unprobed.status, TestStatus::ExpectedPassing);
  EXPECT_EQ(resolve_overrides(e, {"n150", "simulated"}).required_pcc, std::nullopt);
}

TEST_F(Overrides, TheEmitcBlockAppliesOnlyWithEmitc) {
  const TestEntry e = entry();
  ASSERT_EQ(e.emitc_overrides.size(), 1u);
  EXPECT_EQ(e.emitc_overrides[0].defined_at.to_string(), path("a.yaml") + ":18:5");
  const TestEntry plain = resolve_overrides(e, {"n150", "simulated"});
  EXPECT_EQ(plain.status, TestStatus::ExpectedPassing);
  EXPECT_EQ(override_origin(e, {"n150", "simulated"}, "status"), std::nullopt);
  const TestEntry emitc = resolve_overrides(e, {"n150", "simulated", true});
  EXPECT_EQ(emitc.status, TestStatus::KnownFailureXfail);
  EXPECT_EQ(emitc.reason, "generated code lacks the op");
  EXPECT_DOUBLE_EQ(*emitc.required_pcc, 0.99);  // not in the block: the entry's own
  EXPECT_EQ(emitc.sources.at("status").to_string(), path("a.yaml") + ":19:7");
  EXPECT_EQ(override_origin(e, {"n150", "simulated", true}, "status"), "emitc_overrides");
  EXPECT_EQ(override_origin(e, {"n150", "simulated", true}, "required_pcc"), std::nullopt);
}

TEST_F(Overrides, TheEmitcBlockAppliesAfterTheBackendBlock) {
  const TestEntry e = entry();
  const TestEntry n300_pjrt_emitc = resolve_overrides(e, {"n300", "pjrt", true});
  EXPECT_EQ(n300_pjrt_emitc.reason, "generated code lacks the op");  // all three set it: emitc's
  EXPECT_EQ(override_origin(e, {"n300", "pjrt", true}, "reason"), "emitc_overrides");
  EXPECT_DOUBLE_EQ(*n300_pjrt_emitc.required_pcc, 0.9);  // only the backend sets it: the backend's
  EXPECT_EQ(override_origin(e, {"n300", "pjrt", true}, "required_pcc"), "backend_overrides.pjrt");
}

TEST(OverrideKinds, AllKindsAreEntryFieldsInResolutionOrder) {
  ASSERT_EQ(override_kinds().size(), 3u);
  EXPECT_EQ(override_kinds()[0].field, "arch_overrides");
  EXPECT_EQ(override_kinds()[1].field, "backend_overrides");
  EXPECT_EQ(override_kinds()[2].field, "emitc_overrides");
  EXPECT_TRUE(override_kinds()[1].named());
  EXPECT_FALSE(override_kinds()[2].named());
  EXPECT_EQ(find_override_kind("backend_overrides"), &override_kinds()[1]);
  EXPECT_EQ(find_override_kind("emitc_overrides"), &override_kinds()[2]);
  EXPECT_EQ(find_override_kind("status"), nullptr);
}

}  // namespace
}  // namespace meshtest::config
