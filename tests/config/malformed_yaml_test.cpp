// Malformed YAML never crashes or hangs the loader: each case gives a clear
// error with a position, and the rest of the config still loads.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "config/yaml_prescan.h"
#include "config/yaml_tree.h"
#include "config_fixture.h"

namespace meshtest::config {
namespace {

class MalformedYaml : public ConfigDirTest {
 protected:
  std::string load_one(const std::string& text) {
    write("bad.yaml", text);
    write("good.yaml", "test_config:\n  ok-single_device-inference: {status: EXPECTED_PASSING}\n");
    const TestConfig c = load();
    EXPECT_EQ(c.entries.count("ok-single_device-inference"), 1u) << "the other file must still load";
    return only_line();
  }
  std::string at(int line, int column) const {
    return path("bad.yaml") + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  }
};

TEST_F(MalformedYaml, BadIndentation) {
  const std::string line = load_one("test_config:\n  a-single_device-inference:\n    status: EXPECTED_PASSING\n"
                                    "   reason: misaligned\n");
  EXPECT_EQ(line.rfind(at(4, 4) + "malformed YAML: ", 0), 0u) << line;
}

TEST_F(MalformedYaml, TabsInIndentation) {
  EXPECT_EQ(load_one("test_config:\n  a-single_device-inference:\n\tstatus: EXPECTED_PASSING\n"),
            at(3, 1) + "tab character in indentation (YAML indents with spaces only)");
}

TEST_F(MalformedYaml, TabsInsideValuesAreFine) {
  write("a.yaml", "test_config:\n  a-single_device-inference:\n    reason: \"a\tb\"   # tab\tin comment\n");
  const TestConfig c = load();
  EXPECT_TRUE(diags.empty()) << ::testing::PrintToString(lines());
  EXPECT_EQ(c.find("a-single_device-inference")->reason, "a\tb");
}

TEST_F(MalformedYaml, UnterminatedStrings) {
  EXPECT_EQ(load_one("test_config:\n  a-single_device-inference:\n    reason: \"never closed\n"),
            at(3, 13) + "unterminated \"-quoted string (it runs to the end of the file)");
  diags.clear();
  EXPECT_EQ(load_one("test_config:\n  a: {status: 'open\n}\n"),
            at(2, 15) + "unterminated '-quoted string (it runs to the end of the file)");
  diags.clear();
  const std::string line = load_one("test_config:\n  a: {status: \"open\n  b: {}\n\"\n");
  EXPECT_NE(line.find("malformed YAML: "), std::string::npos) << line;
}

TEST_F(MalformedYaml, NotUtf8) {
  EXPECT_EQ(load_one("test_config:\n  a-single_device-inference:\n    reason: caf\xe9\n"),
            at(3, 16) + "invalid UTF-8 (byte 0xe9); test_config files must be UTF-8");
  diags.clear();
  EXPECT_EQ(load_one("\xff\xfet\0e\0s\0t\0"), at(1, 1) + "invalid UTF-8 (byte 0xff); test_config files must be UTF-8");
}

TEST_F(MalformedYaml, Utf8TextIsFineAndColumnsCountCharacters) {
  write("a.yaml", "test_config:\n  a-single_device-inference:\n    reason: \"détente\"\n    x: 1\n");
  load();
  EXPECT_EQ(only_line(), path("a.yaml") + ":4:5: unknown field 'x'");
  diags.clear();
  write("a.yaml", "test_config:\n  a-single_device-inference: {reason: \"é\xc3\"}\n");
  load();
  EXPECT_EQ(only_line(), path("a.yaml") + ":2:41: invalid UTF-8 (byte 0xc3); test_config files must be UTF-8");
}

TEST_F(MalformedYaml, ControlCharacters) {
  constexpr char kText[] = "test_config:\n  a: {reason: x\0y}\n";
  EXPECT_EQ(load_one(std::string(kText, sizeof kText - 1)),
            at(2, 16) + "control character U+0000 is not allowed in YAML");
}

TEST_F(MalformedYaml, AnchorsAndAliasesAreRejected) {
  write("bad.yaml", R"(test_config:
  a-single_device-inference: &common
    status: EXPECTED_PASSING
  b-single_device-inference: *common
)");
  load();
  EXPECT_EQ(lines(), (std::vector<std::string>{
                         at(2, 30) + "anchors ('&name') are not allowed in test_config files; write the value out",
                         at(4, 30) + "aliases ('*name') are not allowed in test_config files; write the value out",
                         at(4, 3) + "entry 'b-single_device-inference' must be a mapping of fields, got nothing"}));
}

TEST_F(MalformedYaml, AliasToAnUndefinedAnchor) {
  const std::string line = load_one("test_config:\n  a: *nowhere\n");
  EXPECT_NE(line.find("malformed YAML: "), std::string::npos) << line;
}

TEST_F(MalformedYaml, FiftyMegabyteFile) {
  std::string big = "test_config:\n";
  const std::string entry = "  some/model/native-variant_000000-single_device-inference: {status: EXPECTED_PASSING}\n";
  big.reserve(50u << 20);
  while (big.size() < (50u << 20)) big += entry;
  EXPECT_EQ(load_one(big), at(1, 1) + "file is 50.0 MiB, over the 16 MiB limit for a test_config file (split it)");
}

TEST_F(MalformedYaml, TenThousandDeepFlowNesting) {
  EXPECT_EQ(load_one("test_config: " + std::string(10000, '[') + std::string(10000, ']') + "\n"),
            at(1, 77) + "nesting deeper than 64 levels (a test_config entry needs at most 6)");
  diags.clear();
  std::string maps = "test_config: ";
  for (int i = 0; i < 10000; ++i) maps += "{a: ";
  EXPECT_EQ(load_one(maps + "\n").rfind(at(1, 14 + 4 * 63) + "nesting deeper than 64 levels", 0), 0u);
}

TEST_F(MalformedYaml, TenThousandDeepBlockNesting) {
  std::string seqs = "test_config:\n  a: ";
  for (int i = 0; i < 10000; ++i) seqs += "- ";
  EXPECT_EQ(load_one(seqs + "x\n").rfind(at(2, 6 + 2 * 62) + "nesting deeper than 64 levels", 0), 0u);
  diags.clear();
  std::string maps;
  for (int i = 0; i < 200; ++i) maps += std::string(i, ' ') + "k" + std::to_string(i) + ":\n";
  EXPECT_EQ(load_one(maps).rfind(at(65, 65) + "nesting deeper than 64 levels", 0), 0u);
}

TEST_F(MalformedYaml, MoreThanOneDocument) {
  EXPECT_EQ(load_one("test_config: {}\n---\ntest_config: {}\n"),
            at(2, 1) + "more than one YAML document ('---'); a test_config file holds one");
}

TEST(YamlPrescan, QuotesCommentsAndBlockScalarsAreNotNesting) {
  const std::string ok = "test_config:\n"
                         "  a: {reason: \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"}\n"
                         "  b: {reason: '{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{'}\n"
                         "  c: # [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
                         "    reason: |\n"
                         "      [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n"
                         "  d:\n"
                         "    reason: it's [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n";
  EXPECT_TRUE(prescan_yaml(ok, "f").empty());
}

// Random damage to a valid file: whatever comes out, the loader returns.
TEST(YamlFuzz, RandomMutationsNeverCrash) {
  const std::string valid = R"(test_config:
  resnet/native-resnet50-single_device-inference:
    status: EXPECTED_PASSING
    required_pcc: 0.98
    markers: [push, "fast"]
    arch_overrides:
      p150: {required_pcc: 0.97, supported_archs: [p150]}
    reason: >
      folded text
PLACEHOLDER_MODELS:
  "meta-llama/Llama-3.1-405B": {reason: 'planned'}
)";
  const std::string alphabet = "[]{}:-?&*!|>'\"#,\t\n \\%@`\x80\xff";
  std::mt19937 rng(1234);
  for (int round = 0; round < 3000; ++round) {
    std::string text = valid;
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % text.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: text[pos] = c; break;
        case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(pos), c); break;
        default: text.erase(pos, 1 + rng() % 8); break;
      }
    }
    TestConfig config;
    std::vector<Diagnostic> diags;
    load_test_config_text(text, "fuzz.yaml", config, diags);
    for (const Diagnostic& d : diags) {
      ASSERT_GE(d.where.line, 1) << text;
      ASSERT_GE(d.where.column, 1) << text;
    }
  }
}

}  // namespace
}  // namespace meshtest::config
