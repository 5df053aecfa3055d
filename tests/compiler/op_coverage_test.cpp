// Op coverage: walks every OpKind through each module's table and fails when
// an op lacks a reference kernel, a reference gradient, a device kernel, a
// VJP rule or a sharding rule without an explicit, stated reason in that
// table (see core/op_table.h; how to add an op: core/ops.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compiler/autodiff.h"
#include "compiler/sharding/sharding_rules.h"
#include "core/op_def.h"
#include "runtime/device/simulated_chip.h"
#include "runtime/reference/reference_backward.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest {
namespace {

// "op 'x' has no <what> and no stated reason (add it to <where>)" per gap.
template <class Impl>
std::vector<std::string> gaps(const OpTable<Impl>& table, const std::string& where) {
  std::vector<std::string> missing;
  for (OpKind kind : all_ops()) {
    const std::string op = "op '" + std::string(op_name(kind)) + "'";
    if (!table.listed(kind)) {
      missing.push_back(op + " has no " + std::string(table.what()) + " and no stated reason (add one to " + where +
                        ")");
    } else if (table.find(kind) == nullptr && table.reason(kind).empty()) {
      missing.push_back(op + " has no " + std::string(table.what()) + " and an empty reason in " + where);
    }
  }
  return missing;
}

TEST(OpCoverage, EveryOpHasAReferenceKernelOrAReason) {
  EXPECT_THAT(gaps(runtime::reference_kernels(), "runtime/reference/reference_kernel_table.cpp"), testing::IsEmpty());
}

TEST(OpCoverage, EveryOpHasAReferenceGradientOrAReason) {
  EXPECT_THAT(gaps(runtime::reference_gradients(), "runtime/reference/reference_gradient_table.cpp"),
              testing::IsEmpty());
}

TEST(OpCoverage, EveryOpHasADeviceKernelOrAReason) {
  EXPECT_THAT(gaps(runtime::device_kernel_table(), "runtime/device/device_kernel_table.cpp"), testing::IsEmpty());
}

TEST(OpCoverage, EveryOpHasAVjpRuleOrAReason) {
  EXPECT_THAT(gaps(compiler::vjp_rules(), "compiler/autodiff/vjp_rules.cpp"), testing::IsEmpty());
}

TEST(OpCoverage, EveryOpHasAShardingRuleOrAReason) {
  EXPECT_THAT(gaps(compiler::sharding::sharding_rules(), "compiler/sharding/sharding_rules.cpp"), testing::IsEmpty());
}

// An op the loaders build (not made by the compiler) needs both executors:
// the reference is the golden the device is checked against.
TEST(OpCoverage, EveryLoaderOpRunsOnTheReferenceAndTheDevice) {
  for (OpKind kind : all_ops()) {
    const OpFamily family = op_def(kind).family;
    if (family == OpFamily::Collective || family == OpFamily::Composite || kind == OpKind::EmbeddingShard) continue;
    EXPECT_TRUE(runtime::reference_kernels().find(kind) != nullptr) << op_name(kind) << " has no reference kernel";
    EXPECT_TRUE(runtime::device_kernel_table().find(kind) != nullptr) << op_name(kind) << " has no device kernel";
  }
}

}  // namespace
}  // namespace meshtest
