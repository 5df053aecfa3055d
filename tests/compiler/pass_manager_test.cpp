// Tests of the pass registry and pass manager: pipeline selection per level,
// verification after every pass, skipping by name, timing and statistics.
#include "compiler/pass_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "compiler/compile.h"
#include "core/error.h"
#include "core/graph_builder.h"

namespace meshtest::compiler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Graph small_graph() {
  GraphBuilder g("small");
  const ValueId x = g.input("x", DType::F32, {2, 8});
  const ValueId w = g.weight("w", {16, 8}, Initializer::normal(0, 0.1, 1));
  g.output("y", g.relu(g.linear(x, w)));
  return g.finish();
}

std::vector<std::string> names(const PassManager& pm) {
  std::vector<std::string> out;
  for (const PassRun& r : pm.runs()) out.push_back(r.name);
  return out;
}

TEST(PassRegistry, ListsEveryPassOnceWithASummary) {
  std::set<std::string> seen;
  for (const PassInfo& p : pass_registry()) {
    EXPECT_TRUE(seen.insert(std::string(p.name)).second) << p.name;
    EXPECT_FALSE(p.summary.empty()) << p.name;
    EXPECT_EQ(find_pass(p.name), &p);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"verify", "shard", "decompose", "fuse", "const-eval", "lower",
                                         "lower-dtypes", "tile-layout", "plan-memory"}));
  EXPECT_EQ(find_pass("nope"), nullptr);
}

TEST(PassManager, LevelsSelectPasses) {
  CompileOptions o0;
  CompileUnit unit{small_graph(), std::nullopt, o0, {}};
  PassManager pm0 = PassManager::default_pipeline(o0);
  pm0.run(unit);
  EXPECT_THAT(names(pm0), ElementsAre("verify", "decompose", "lower", "lower-dtypes", "tile-layout", "plan-memory"));

  CompileOptions o1;
  o1.optimization_level = 1;
  CompileUnit unit1{small_graph(), std::nullopt, o1, {}};
  PassManager pm1 = PassManager::default_pipeline(o1);
  pm1.run(unit1);
  EXPECT_THAT(names(pm1), ElementsAre("verify", "decompose", "fuse", "const-eval", "lower", "lower-dtypes",
                                      "tile-layout", "plan-memory"));

  o1.enable_fusion = false;
  CompileUnit unit2{small_graph(), std::nullopt, o1, {}};
  PassManager pm2 = PassManager::default_pipeline(o1);
  pm2.run(unit2);
  EXPECT_THAT(names(pm2), ::testing::Not(::testing::Contains("fuse")));
}

TEST(PassManager, SkipsByNameAndTimesEachPass) {
  CompileOptions o;
  o.optimization_level = 1;
  o.skip_passes = {"const-eval"};
  CompileUnit unit{small_graph(), std::nullopt, o, {}};
  PassManager pm = PassManager::default_pipeline(o);
  pm.run(unit);
  for (const PassRun& r : pm.runs()) {
    EXPECT_EQ(r.skipped, r.name == "const-eval") << r.name;
    EXPECT_GE(r.seconds, 0.0);
  }
  EXPECT_EQ(unit.stats.count("const-eval.ops_folded"), 0u);
  EXPECT_EQ(unit.stats.at("lower.instructions"), 2);
}

TEST(PassManager, VerifiesAfterEveryPassAndNamesThePass) {
  static const PassInfo breaker{
      "break-types", "declares a wrong result type", nullptr,
      [](CompileUnit& u) { u.graph.values[static_cast<size_t>(u.graph.ops[0].output)].type.shape = {3}; }, false};
  CompileUnit unit{small_graph(), std::nullopt, {}, {}};
  PassManager pm({find_pass("verify"), &breaker});
  try {
    pm.run(unit);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_THAT(e.what(), HasSubstr("after pass 'break-types'"));
    EXPECT_THAT(e.what(), HasSubstr("op #0 linear"));
  }
}

TEST(PassManager, DumpHookSeesEveryPassThatRan) {
  std::vector<std::string> dumped;
  CompileOptions o;
  o.skip_passes = {"decompose"};
  CompileUnit unit{small_graph(), std::nullopt, o, {}};
  PassManager::default_pipeline(o).run(unit,
                                       [&](std::string_view pass, const CompileUnit&) { dumped.emplace_back(pass); });
  EXPECT_THAT(dumped, ElementsAre("verify", "lower", "lower-dtypes", "tile-layout", "plan-memory"));
}

TEST(PassManager, ProgramPassNeedsLoweringFirst) {
  CompileUnit unit{small_graph(), std::nullopt, {}, {}};
  PassManager pm = PassManager::from_names({"tile-layout"});
  EXPECT_THROW(pm.run(unit), CompileError);
  EXPECT_THROW(PassManager::from_names({"no-such-pass"}), CompileError);
}

}  // namespace
}  // namespace meshtest::compiler
