// Every class of test_config problem, with the exact line the user sees:
// "file:line:column: message", all of them in one pass.
#include <gtest/gtest.h>

#include "config/test_config.h"
#include "config_fixture.h"

namespace meshtest::config {
namespace {

class Validation : public ConfigDirTest {
 protected:
  // Loads one file holding `body` under "test_config:\n  a-single_device-inference:\n".
  std::string problem_in_entry(const std::string& body) {
    write("x.yaml", "test_config:\n  a-single_device-inference:\n" + body);
    load();
    return only_line();
  }
  std::string at(int line, int column) const {
    return path("x.yaml") + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  }
};

TEST_F(Validation, UnknownFieldSuggestsTheNearestName) {
  EXPECT_EQ(problem_in_entry("    stauts: EXPECTED_PASSING\n"),
            at(3, 5) + "unknown field 'stauts' (did you mean 'status'?)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    requried_pcc: 0.9\n"),
            at(3, 5) + "unknown field 'requried_pcc' (did you mean 'required_pcc'?)");
}

TEST_F(Validation, UnknownFieldFarFromEveryNameHasNoSuggestion) {
  EXPECT_EQ(problem_in_entry("    colour: blue\n"), at(3, 5) + "unknown field 'colour'");
}

TEST_F(Validation, OtherRunnersFieldsOnlyWarn) {
  write("x.yaml", "test_config:\n  a-single_device-inference:\n    inject_custom_moe: true\n");
  const TestConfig c = load();
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ(count_errors(diags), 0u);
  EXPECT_EQ(diags[0].to_string(),
            at(3, 5) + "warning: field 'inject_custom_moe' is used by other runners and ignored by meshtest");
  EXPECT_EQ(c.entries.size(), 1u);
}

// run --emitc's exactness: meshtest's name and the other runners' name set the same field, without a warning.
TEST_F(Validation, CodegenAssertExactUnderEitherName) {
  write("x.yaml", "test_config:\n  a-single_device-inference:\n    emitpy_assert_exact: false\n"
                  "  b-single_device-inference:\n    codegen_assert_exact: false\n"
                  "  c-single_device-inference:\n    status: EXPECTED_PASSING\n");
  const TestConfig c = load();
  EXPECT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  EXPECT_EQ(c.entries.at("a-single_device-inference").codegen_assert_exact, false);
  EXPECT_EQ(c.entries.at("b-single_device-inference").codegen_assert_exact, false);
  EXPECT_EQ(c.entries.at("c-single_device-inference").codegen_assert_exact, std::nullopt);
}

TEST_F(Validation, WrongTypes) {
  EXPECT_EQ(problem_in_entry("    required_pcc: high\n"), at(3, 19) + "field 'required_pcc' must be a number, got 'high'");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    required_pcc: \"0.99\"\n"),
            at(3, 19) + "field 'required_pcc' must be a number, got the string \"0.99\"");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    assert_pcc: maybe\n"), at(3, 17) + "field 'assert_pcc' must be true or false, got 'maybe'");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    reason: [a, b]\n"), at(3, 13) + "field 'reason' must be a string, got a list");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    markers: {a: b}\n"),
            at(3, 14) + "field 'markers' must be a string or a list of strings, got a mapping");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    filechecks: [a.mlir, [b]]\n"),
            at(3, 26) + "items of field 'filechecks' must be strings, got a list");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    batch_size: 1.5\n"),
            at(3, 17) + "field 'batch_size' must be an integer at least 1, got '1.5'");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    status:\n"), at(3, 5) + "field 'status' must be a string, got nothing");
}

TEST_F(Validation, OutOfRangeValues) {
  EXPECT_EQ(problem_in_entry("    required_pcc: 1.5\n"), at(3, 19) + "field 'required_pcc' must be between 0 and 1, got 1.5");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    required_pcc: -0.1\n"), at(3, 19) + "field 'required_pcc' must be between 0 and 1, got -0.1");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    optimization_level: 3\n"),
            at(3, 25) + "field 'optimization_level' must be an integer between 0 and 2, got '3'");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    required_atol: -1\n"), at(3, 20) + "field 'required_atol' must be at least 0, got -1");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    seq_len: 0\n"), at(3, 14) + "field 'seq_len' must be an integer at least 1, got '0'");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    timeout: 0\n"), at(3, 14) + "field 'timeout' must be at least 0.001, got 0");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    required_pcc: .nan\n"), at(3, 19) + "field 'required_pcc' must be a number, got '.nan'");
}

TEST_F(Validation, InvalidEnumListsAllowedValues) {
  EXPECT_EQ(problem_in_entry("    status: PASSING_MAYBE\n"),
            at(3, 13) + "invalid status 'PASSING_MAYBE'; allowed: EXPECTED_PASSING, KNOWN_FAILURE_XFAIL, "
                        "NOT_SUPPORTED_SKIP, UNSPECIFIED, EXCLUDE_MODEL (or the same in lower case)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    bringup_status: FAILED_RUNTIM\n"),
            at(3, 21) + "invalid bringup_status 'FAILED_RUNTIM' (did you mean 'FAILED_RUNTIME'?); allowed: PASSED, "
                        "FAILED_FE_COMPILATION, FAILED_TTMLIR_COMPILATION, FAILED_RUNTIME, INCORRECT_RESULT, "
                        "NOT_STARTED, UNKNOWN (or the same in lower case)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    execution_pass: sideways\n"),
            at(3, 21) + "invalid execution_pass 'sideways'; allowed: FORWARD, BACKWARD (or the same in lower case)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    math_fidelity: HiFi5\n"),
            at(3, 20) + "invalid math_fidelity 'HiFi5' (did you mean 'HiFi2'?); allowed: LoFi, HiFi2, HiFi3, HiFi4 (or "
                        "the same in lower case)");
}

TEST_F(Validation, UnknownArchNames) {
  const std::string known =
      "; known archs: n150, p150, n300, n300-llmbox, galaxy-wh-6u, galaxy-bh, qb2-blackhole, lb-blackhole";
  EXPECT_EQ(problem_in_entry("    supported_archs: [n150, n151]\n"),
            at(3, 29) + "unknown arch 'n151' (did you mean 'n150'?)" + known);
  diags.clear();
  EXPECT_EQ(problem_in_entry("    supported_archs: n300_llmbox\n"),
            at(3, 22) + "unknown arch 'n300_llmbox' (did you mean 'n300-llmbox'?)" + known);
  diags.clear();
  EXPECT_EQ(problem_in_entry("    arch_overrides:\n      wormhole: {required_pcc: 0.9}\n"),
            at(4, 7) + "unknown arch 'wormhole'" + known);
}

TEST_F(Validation, ArchOverridesAreCheckedLikeEntries) {
  EXPECT_EQ(problem_in_entry("    arch_overrides:\n      p150: {required_pcc: 2}\n"),
            at(4, 28) + "field 'required_pcc' must be between 0 and 1, got 2");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    arch_overrides:\n      p150: {arch_overrides: {}}\n"),
            at(4, 14) + "field 'arch_overrides' is not allowed in an arch override");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    arch_overrides: [p150]\n"),
            at(3, 21) + "field 'arch_overrides' must map arch names to fields, got a list");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    arch_overrides:\n      p150: {status: x}\n"),
            at(4, 22) + "invalid status 'x'; allowed: EXPECTED_PASSING, KNOWN_FAILURE_XFAIL, NOT_SUPPORTED_SKIP, "
                        "UNSPECIFIED, EXCLUDE_MODEL (or the same in lower case)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    arch_overrides:\n      p150: {}\n      p150: {}\n"),
            at(5, 7) + "duplicate arch 'p150' in arch_overrides (first at " + path("x.yaml") + ":4:7)");
}

TEST_F(Validation, BackendOverridesNameAKnownBackend) {
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      pjrtt: {status: KNOWN_FAILURE_XFAIL}\n"),
            at(4, 7) + "unknown backend 'pjrtt' (did you mean 'pjrt'?); known backends: simulated, pjrt, pjrt:<platform>");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      tt-xla: {status: KNOWN_FAILURE_XFAIL}\n"),
            at(4, 7) + "unknown backend 'tt-xla'; known backends: simulated, pjrt, pjrt:<platform>");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      n150: {}\n"),  // an arch is not a backend
            at(4, 7) + "unknown backend 'n150'; known backends: simulated, pjrt, pjrt:<platform>");
}

TEST_F(Validation, BackendOverridesMayScopePjrtToAPlatform) {
  write("x.yaml", "test_config:\n  a-single_device-inference:\n    backend_overrides:\n      pjrt:cuda: {}\n");
  load();
  EXPECT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      pjrt:CUDA: {}\n"),
            at(4, 7) + "backend 'pjrt:CUDA': a platform is the plugin's platform name in lowercase letters, digits, "
                       "'_' or '-' (e.g. pjrt:cuda)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      pjrt:: {}\n"),
            at(4, 7) + "backend 'pjrt:': a platform is the plugin's platform name in lowercase letters, digits, "
                       "'_' or '-' (e.g. pjrt:cuda)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      simulated:n150: {}\n"),
            at(4, 7) + "backend 'simulated:n150': only pjrt is scoped by platform (pjrt:<platform>)");
}

TEST_F(Validation, BackendOverridesAreCheckedLikeEntries) {
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      pjrt: {stauts: KNOWN_FAILURE_XFAIL}\n"),
            at(4, 14) + "unknown field 'stauts' (did you mean 'status'?)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      pjrt: {required_pcc: 2}\n"),
            at(4, 28) + "field 'required_pcc' must be between 0 and 1, got 2");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      pjrt: {arch_overrides: {n150: {}}}\n"),
            at(4, 14) + "field 'arch_overrides' is not allowed in a backend override");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    arch_overrides:\n      p150: {backend_overrides: {pjrt: {}}}\n"),
            at(4, 14) + "field 'backend_overrides' is not allowed in an arch override");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_overrides: pjrt\n"),
            at(3, 24) + "field 'backend_overrides' must map backend names to fields, got 'pjrt'");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      pjrt: [status]\n"),
            at(4, 13) + "backend_overrides.pjrt must be a mapping of fields, got a list");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_overrides:\n      pjrt: {}\n      pjrt: {}\n"),
            at(5, 7) + "duplicate backend 'pjrt' in backend_overrides (first at " + path("x.yaml") + ":4:7)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    backend_override:\n      pjrt: {}\n"),
            at(3, 5) + "unknown field 'backend_override' (did you mean 'backend_overrides'?)");
}

TEST_F(Validation, EmitcOverridesAreOneBlockCheckedLikeEntries) {
  EXPECT_EQ(problem_in_entry("    emitc_overrides:\n      stauts: KNOWN_FAILURE_XFAIL\n"),
            at(4, 7) + "unknown field 'stauts' (did you mean 'status'?)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    emitc_overrides: {required_pcc: 2}\n"),
            at(3, 37) + "field 'required_pcc' must be between 0 and 1, got 2");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    emitc_overrides:\n      backend_overrides: {pjrt: {}}\n"),
            at(4, 7) + "field 'backend_overrides' is not allowed in an emitc override");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    emitc_overrides:\n      emitc_overrides: {status: KNOWN_FAILURE_XFAIL}\n"),
            at(4, 7) + "field 'emitc_overrides' is not allowed in an emitc override");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    arch_overrides:\n      p150: {emitc_overrides: {}}\n"),
            at(4, 14) + "field 'emitc_overrides' is not allowed in an arch override");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    emitc_overrides: [status]\n"),
            at(3, 22) + "emitc_overrides must be a mapping of fields, got a list");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    emitc_override:\n      status: KNOWN_FAILURE_XFAIL\n"),
            at(3, 5) + "unknown field 'emitc_override' (did you mean 'emitc_overrides'?)");
}

TEST_F(Validation, AnEmitcOverrideLoadsWithoutDiagnostics) {
  write("x.yaml", "test_config:\n  a-single_device-inference:\n    status: EXPECTED_PASSING\n"
                  "    emitc_overrides:\n      status: KNOWN_FAILURE_XFAIL\n      reason: codegen\n");
  const TestConfig c = load();
  EXPECT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  const TestEntry* e = c.find("a-single_device-inference");
  ASSERT_EQ(e->emitc_overrides.size(), 1u);
  EXPECT_EQ(e->emitc_overrides[0].name, "emitc");
  EXPECT_EQ(e->emitc_overrides[0].defined_at.to_string(), path("x.yaml") + ":4:5");
}

TEST_F(Validation, ABackendOverrideLoadsWithoutDiagnostics) {
  write("x.yaml", "test_config:\n  a-single_device-inference:\n    status: EXPECTED_PASSING\n"
                  "    backend_overrides:\n      pjrt: {status: KNOWN_FAILURE_XFAIL, reason: plugin}\n"
                  "      simulated: {required_pcc: 0.98}\n");
  const TestConfig c = load();
  EXPECT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  ASSERT_EQ(c.find("a-single_device-inference")->backend_overrides.size(), 2u);
}

TEST_F(Validation, MarkersMustBeSelectable) {
  EXPECT_EQ(problem_in_entry("    markers: [push, \"needs fix\"]\n"),
            at(3, 21) + "marker 'needs fix' cannot be selected with -m (character ' '; use letters, digits and _ : "
                        "+ - . [ ] \\ /)");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    markers: [not]\n"),
            at(3, 15) + "marker 'not' cannot be selected with -m ('not' is an operator)");
}

TEST_F(Validation, DuplicateFieldInOneEntry) {
  EXPECT_EQ(problem_in_entry("    status: EXPECTED_PASSING\n    status: KNOWN_FAILURE_XFAIL\n"),
            at(4, 5) + "duplicate field 'status' (first at " + path("x.yaml") + ":3:5)");
}

TEST_F(Validation, DuplicateIdInOneFile) {
  write("x.yaml", "test_config:\n  a-single_device-inference:\n    status: EXPECTED_PASSING\n"
                  "  a-single_device-inference:\n    status: KNOWN_FAILURE_XFAIL\n");
  load();
  EXPECT_EQ(only_line(), at(4, 3) + "duplicate test id 'a-single_device-inference' (first defined at " +
                             path("x.yaml") + ":2:3)");
}

TEST_F(Validation, DuplicateIdAcrossFilesNamesBothPlaces) {
  write("a.yaml", "test_config:\n  x-single_device-inference:\n    status: EXPECTED_PASSING\n");
  write("b.yaml", "test_config:\n\n  x-single_device-inference:\n    status: EXPECTED_PASSING\n");
  load();
  EXPECT_EQ(only_line(), path("b.yaml") + ":3:3: duplicate test id 'x-single_device-inference' (first defined at " +
                             path("a.yaml") + ":2:3)");
}

TEST_F(Validation, DuplicatePlaceholderAcrossFiles) {
  write("a.yaml", "PLACEHOLDER_MODELS:\n  Big-Model: {}\n");
  write("b.yaml", "PLACEHOLDER_MODELS:\n  big-model:\n");
  load();
  EXPECT_EQ(only_line(), path("b.yaml") + ":2:3: duplicate placeholder 'placeholder/big-model' (first defined at " +
                             path("a.yaml") + ":2:3)");
}

TEST_F(Validation, PlaceholdersTakeOnlyBringupStatusAndReason) {
  write("x.yaml", "PLACEHOLDER_MODELS:\n  m:\n    status: EXPECTED_PASSING\n    resaon: x\n");
  load();
  EXPECT_EQ(lines(), (std::vector<std::string>{
                         at(3, 5) + "field 'status' is not allowed in a placeholder (allowed: bringup_status, reason)",
                         at(4, 5) + "unknown field 'resaon' (did you mean 'reason'?)"}));
}

TEST_F(Validation, DocumentStructure) {
  write("x.yaml", "test_confg:\n  a: {}\n");
  load();
  EXPECT_EQ(only_line(), at(1, 1) + "unknown top-level key 'test_confg' (did you mean 'test_config'?); a test_config "
                                    "file holds 'test_config:' and/or 'PLACEHOLDER_MODELS:'");
  diags.clear();
  write("x.yaml", "- a\n- b\n");
  load();
  EXPECT_EQ(only_line(), at(1, 1) + "expected a top-level 'test_config:' or 'PLACEHOLDER_MODELS:' mapping, got a list");
  diags.clear();
  write("x.yaml", "test_config: [a]\n");
  load();
  EXPECT_EQ(only_line(), at(1, 14) + "'test_config' must be a mapping, got a list");
  diags.clear();
  EXPECT_EQ(problem_in_entry("    EXPECTED_PASSING\n"),
            at(3, 5) + "entry 'a-single_device-inference' must be a mapping of fields, got 'EXPECTED_PASSING'");
}

TEST_F(Validation, EveryProblemInOnePassInFileOrder) {
  write("a.yaml", R"(test_config:
  a-x-single_device-inference:
    statuss: EXPECTED_PASSING
    required_pcc: 1.5
  b-x-single_device-inference:
    status: PASSING_MAYBE
    supported_archs: [n15O]
)");
  write("b.yaml", "test_config:\n  a-x-single_device-inference: {}\n");
  load();
  const std::vector<std::string> got = lines();
  ASSERT_EQ(got.size(), 5u) << ::testing::PrintToString(got);
  EXPECT_EQ(got[0].rfind(path("a.yaml") + ":3:5: unknown field 'statuss'", 0), 0u);
  EXPECT_EQ(got[1].rfind(path("a.yaml") + ":4:19: field 'required_pcc'", 0), 0u);
  EXPECT_EQ(got[2].rfind(path("a.yaml") + ":6:13: invalid status 'PASSING_MAYBE'", 0), 0u);
  EXPECT_EQ(got[3].rfind(path("a.yaml") + ":7:23: unknown arch 'n15O' (did you mean 'n150'?)", 0), 0u);
  EXPECT_EQ(got[4].rfind(path("b.yaml") + ":2:3: duplicate test id", 0), 0u);
}

}  // namespace
}  // namespace meshtest::config
