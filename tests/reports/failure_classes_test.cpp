// Failure classes (reports/failure_classes.h): the loader's diagnostics
// (file:line:col, unknown keys, bad regexes, shadowed and duplicate classes),
// the matching semantics (all/any/not, phases, summary group, first match
// wins, fallbacks), and the shipped test_config/failure_reasons.yaml against
// the bad-input catalogue (docs/bad-inputs.md): every error a case can record
// there maps to a class, never UNCLASSIFIED.
#include "reports/failure_classes.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/run_command.h"

namespace meshtest::reports {
namespace {

using config::Diagnostic;

struct Parsed {
  FailureClasses classes;
  std::vector<std::string> diagnostics;
};

Parsed parse(const std::string& text) {
  std::vector<Diagnostic> diagnostics;
  Parsed p;
  p.classes = parse_failure_classes(text, "f.yaml", diagnostics);
  for (const Diagnostic& d : diagnostics) p.diagnostics.push_back(d.to_string());
  return p;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

bool has_diagnostic(const Parsed& p, const std::string& text) {
  return joined(p.diagnostics).find(text) != std::string::npos;
}

CaseResult failure(const std::string& phase, const std::string& message, FailureKind kind = FailureKind::Exception) {
  CaseResult r;
  r.test_id = "m/native-v-single_device-inference";
  r.outcome = Outcome::Failed;
  r.phase = phase;
  r.failure_kind = kind;
  r.error_message = message;
  return r;
}

FailureClasses shipped() {
  std::vector<Diagnostic> diagnostics;
  FailureClasses classes = load_failure_classes(MESHTEST_SOURCE_DIR "/test_config/failure_reasons.yaml", diagnostics);
  for (const Diagnostic& d : diagnostics) ADD_FAILURE() << d.to_string();
  return classes;
}

// --- Loading and validation ------------------------------------------------------

TEST(FailureClassesLoader, ReadsEveryField) {
  const Parsed p = parse(
      "failure_classes:\n"
      "  - name: DEVICE_DRAM_OOM\n"
      "    description: too big\n"
      "    component: device\n"
      "    phases: [compile, execute]\n"
      "    match: {message: \"out of DRAM\"}\n"
      "    summary: \"need ([0-9]+)\"\n"
      "    fallback: false\n");
  ASSERT_TRUE(p.diagnostics.empty()) << joined(p.diagnostics);
  ASSERT_EQ(p.classes.classes.size(), 1u);
  const FailureClass& c = p.classes.classes[0];
  EXPECT_EQ(c.name, "DEVICE_DRAM_OOM");
  EXPECT_EQ(c.description, "too big");
  EXPECT_EQ(c.component, "device");
  EXPECT_EQ(c.phases, (std::vector<std::string>{"compile", "execute"}));
  ASSERT_TRUE(c.rule.has_value());
  EXPECT_EQ(c.rule->canonical(), "message~/out of DRAM/");
  EXPECT_EQ(c.defined_at.to_string(), "f.yaml:2:11");
}

TEST(FailureClassesLoader, UnknownKeyIsPositionedWithASuggestion) {
  const Parsed p = parse(
      "failure_classes:\n"
      "  - name: A\n"
      "    componnt: device\n");
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:3:5: unknown failure class key 'componnt' (did you mean 'component'?)"))
      << joined(p.diagnostics);
  EXPECT_TRUE(p.classes.classes.empty());
}

TEST(FailureClassesLoader, UnknownTopLevelKeyAndRuleKey) {
  const Parsed p = parse(
      "failure_reasons:\n"
      "  - name: A\n");
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:1:1: unknown top-level key 'failure_reasons'")) << joined(p.diagnostics);
  const Parsed rule = parse(
      "failure_classes:\n"
      "  - name: A\n"
      "    component: runtime\n"
      "    match: {mesage: x}\n");
  EXPECT_TRUE(has_diagnostic(rule, "f.yaml:4:13: unknown match rule 'mesage' (did you mean 'message'?)"))
      << joined(rule.diagnostics);
}

TEST(FailureClassesLoader, BadRegexNamesItsPosition) {
  const Parsed p = parse(
      "failure_classes:\n"
      "  - name: A\n"
      "    component: runtime\n"
      "    match:\n"
      "      any:\n"
      "        - message_contains: ok\n"
      "        - message: \"out of (DRAM\"\n");
  ASSERT_EQ(p.diagnostics.size(), 1u) << joined(p.diagnostics);
  EXPECT_EQ(p.diagnostics[0].rfind("f.yaml:7:20: bad regex 'out of (DRAM' in field 'message': ", 0), 0u)
      << p.diagnostics[0];
  EXPECT_TRUE(p.classes.classes.empty());
}

TEST(FailureClassesLoader, SummaryNeedsAGroup) {
  const Parsed p = parse(
      "failure_classes:\n"
      "  - name: A\n"
      "    component: runtime\n"
      "    summary: \"no group\"\n");
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:4:14: field 'summary' needs a group")) << joined(p.diagnostics);
}

TEST(FailureClassesLoader, DuplicateNameNamesTheFirst) {
  const Parsed p = parse(
      "failure_classes:\n"
      "  - name: A\n"
      "    component: runtime\n"
      "    match: {kind: crash}\n"
      "  - name: A\n"
      "    component: device\n"
      "    match: {kind: oom}\n");
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:5:11: duplicate failure class 'A' (first defined at f.yaml:2:11)"))
      << joined(p.diagnostics);
  EXPECT_EQ(p.classes.classes.size(), 1u);
}

// A failure_reasons/ folder: its *.yaml files in name order as one list,
// checked across files; find_failure_reasons prefers a test_config folder's
// own classes; the folder beside a failure_reasons.yaml is an error.
TEST(FailureClassesLoader, AFolderLoadsItsFilesInNameOrderAsOneList) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("meshtest-classes-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const fs::path folder = root / "failure_reasons";
  fs::create_directories(folder);
  auto write = [](const fs::path& path, const std::string& text) { std::ofstream(path) << text; };
  write(folder / "20-project.yaml",
        "failure_classes:\n  - name: OUR_KERNEL\n    component: kernels\n    match: {message: \"our kernel\"}\n"
        "  - name: A\n    component: device\n    match: {kind: oom}\n");
  write(folder / "10-meshtest.yaml", "failure_classes:\n  - name: A\n    component: runtime\n    match: {kind: crash}\n");
  write(folder / "notes.txt", "not read");
  EXPECT_EQ(find_failure_reasons(root.string(), "/nonexistent"), folder.string());
  std::vector<Diagnostic> diagnostics;
  FailureClasses classes = load_failure_classes(folder.string(), diagnostics);
  ASSERT_EQ(classes.classes.size(), 2u);
  EXPECT_EQ(classes.classes[0].name, "A");  // 10-meshtest.yaml first
  EXPECT_EQ(classes.classes[1].name, "OUR_KERNEL");
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].to_string(), (folder / "20-project.yaml").string() +
                                            ":5:11: duplicate failure class 'A' (first defined at " +
                                            (folder / "10-meshtest.yaml").string() + ":2:11)");
  EXPECT_EQ(classify(classes, failure("execute", "our kernel broke")).name, "OUR_KERNEL");

  write(root / "failure_reasons.yaml", "failure_classes: []\n");
  diagnostics.clear();
  load_failure_classes(folder.string(), diagnostics);
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_NE(diagnostics[0].to_string().find("failure classes in both this file and the folder"), std::string::npos)
      << diagnostics[0].to_string();
  EXPECT_FALSE(config::is_test_config_file((folder / "10-meshtest.yaml").string()));  // not test_config entries
  fs::remove_all(root);
}

TEST(FailureClassesLoader, ClassWithTheSameRulesLaterIsShadowed) {
  const Parsed p = parse(
      "failure_classes:\n"
      "  - name: FIRST\n"
      "    component: runtime\n"
      "    match: {all: [{kind: crash}, {not: {message: x}}]}\n"
      "  - name: SECOND\n"
      "    component: device\n"
      "    phases: [execute]\n"
      "    match: {all: [{kind: crash}, {not: {message: x}}]}\n");
  EXPECT_TRUE(has_diagnostic(p,
                             "f.yaml:5:11: failure class 'SECOND' can never match: 'FIRST' (f.yaml:2:11) comes "
                             "first and matches every failure it would (the same rules in every phase)"))
      << joined(p.diagnostics);
}

TEST(FailureClassesLoader, ClassAfterOneWithoutRulesInTheSamePhasesIsShadowed) {
  const Parsed p = parse(
      "failure_classes:\n"
      "  - name: ANY_COMPILE\n"
      "    component: compiler\n"
      "    phases: [compile, execute]\n"
      "  - name: PASS\n"
      "    component: compiler\n"
      "    phases: [compile]\n"
      "    match: {message: \"in pass\"}\n");
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:5:11: failure class 'PASS' can never match: 'ANY_COMPILE'"))
      << joined(p.diagnostics);
  // The same classes the other way round, or in phases the first does not cover, are fine.
  const Parsed reordered = parse(
      "failure_classes:\n"
      "  - name: ANY_COMPILE\n"
      "    component: compiler\n"
      "    phases: [compile]\n"
      "  - name: PASS\n"
      "    component: compiler\n"
      "    phases: [compile, golden]\n"
      "    match: {message: \"in pass\"}\n");
  EXPECT_TRUE(reordered.diagnostics.empty()) << joined(reordered.diagnostics);
}

TEST(FailureClassesLoader, ComponentMustNotBeEmptyButMayBeAProjectsOwn) {
  const Parsed empty = parse(
      "failure_classes:\n"
      "  - name: A\n"
      "    component: \"\"\n");
  EXPECT_TRUE(has_diagnostic(empty, "f.yaml:3:16: field 'component' must not be empty")) << joined(empty.diagnostics);
  const Parsed missing = parse(
      "failure_classes:\n"
      "  - name: A\n");
  EXPECT_TRUE(has_diagnostic(missing, "f.yaml:2:11: failure class 'A' needs a 'component'"))
      << joined(missing.diagnostics);
  const Parsed own = parse(
      "failure_classes:\n"
      "  - name: A\n"
      "    component: tt-metal\n");
  EXPECT_TRUE(own.diagnostics.empty()) << joined(own.diagnostics);
}

TEST(FailureClassesLoader, RejectsUnknownPhaseKindAndSignalAndTwoKeyRules) {
  const Parsed p = parse(
      "failure_classes:\n"
      "  - name: A\n"
      "    component: runtime\n"
      "    phases: [exeucte]\n"
      "  - name: B\n"
      "    component: runtime\n"
      "    match: {kind: segfault}\n"
      "  - name: C\n"
      "    component: runtime\n"
      "    match: {signal: segv}\n"
      "  - name: D\n"
      "    component: runtime\n"
      "    match: {kind: crash, message: x}\n"
      "  - name: UNCLASSIFIED\n"
      "    component: runtime\n");
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:4:13: unknown phase 'exeucte' (did you mean 'execute'?)"))
      << joined(p.diagnostics);
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:7:19: unknown failure kind 'segfault'")) << joined(p.diagnostics);
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:10:21: field 'signal' must be a signal name")) << joined(p.diagnostics);
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:13:12: a match rule has exactly one key")) << joined(p.diagnostics);
  EXPECT_TRUE(has_diagnostic(p, "f.yaml:14:11: 'UNCLASSIFIED' is reserved")) << joined(p.diagnostics);
  EXPECT_TRUE(p.classes.classes.empty());
}

TEST(FailureClassesLoader, MalformedYamlIsPositioned) {
  const Parsed p = parse("failure_classes: [\n");
  ASSERT_FALSE(p.diagnostics.empty());
  EXPECT_EQ(p.diagnostics[0].rfind("f.yaml:", 0), 0u) << p.diagnostics[0];
}

TEST(FailureClassesLoader, ShippedFileLoadsCleanly) {
  const FailureClasses classes = shipped();
  EXPECT_GE(classes.classes.size(), 60u);
  std::set<std::string> components;
  for (const FailureClass& c : classes.classes) {
    components.insert(c.component);
    EXPECT_FALSE(c.description.empty()) << c.name;
  }
  for (const std::string& known : known_failure_components()) EXPECT_TRUE(components.count(known)) << known;
}

// --- Matching -------------------------------------------------------------------

const char* const kClasses =
    "failure_classes:\n"
    "  - name: CRASH_OR_HANG_NOT_SEGV\n"
    "    component: runtime\n"
    "    match:\n"
    "      all:\n"
    "        - any: [{kind: crash}, {kind: hang}]\n"
    "        - not: {signal: SIGSEGV}\n"
    "  - name: SEGV\n"
    "    component: runtime\n"
    "    match: {signal: SIGSEGV}\n"
    "  - name: COMPILE_DRAM\n"
    "    component: device\n"
    "    phases: [compile]\n"
    "    match: {message: \"out of (?:device )?DRAM\"}\n"
    "    summary: \"planned peak ([0-9.]+ GiB)\"\n"
    "  - name: ANY_DRAM\n"
    "    component: device\n"
    "    match: {message_contains: \"DRAM\"}\n"
    "  - name: LOGGED\n"
    "    component: a_project\n"
    "    match: {output_contains: \"TT_FATAL\"}\n"
    "    summary: \"(no match)|(never)\"\n"
    "  - name: LOAD_FALLBACK\n"
    "    component: frontend\n"
    "    phases: [load_model]\n"
    "    fallback: true\n";

TEST(FailureClassesMatch, AllAnyNotAndSignal) {
  const Parsed p = parse(kClasses);
  ASSERT_TRUE(p.diagnostics.empty()) << joined(p.diagnostics);
  EXPECT_EQ(classify(p.classes, failure("execute", "hung", FailureKind::Hang)).name, "CRASH_OR_HANG_NOT_SEGV");
  EXPECT_EQ(classify(p.classes, failure("execute", "worker crashed with SIGBUS (Bus error)", FailureKind::Crash)).name,
            "CRASH_OR_HANG_NOT_SEGV");
  EXPECT_EQ(
      classify(p.classes, failure("execute", "worker crashed with SIGSEGV (Segmentation fault)", FailureKind::Crash))
          .name,
      "SEGV");
  // A signal rule reads the message of a killed worker only, not an exception that names a signal.
  EXPECT_EQ(classify(p.classes, failure("execute", "plugin said SIGSEGV")).name, kUnclassified);
}

TEST(FailureClassesMatch, PhasesAndFirstMatchWinsAndSummaryGroup) {
  const Parsed p = parse(kClasses);
  const std::string message = "out of device DRAM: planned peak 64.00 GiB exceeds capacity 12.00 GiB";
  const Classification compile = classify(p.classes, failure("compile", message, FailureKind::Oom));
  EXPECT_EQ(compile.name, "COMPILE_DRAM");
  EXPECT_EQ(compile.component, "device");
  EXPECT_EQ(compile.summary, "64.00 GiB");
  // Outside its phase the first class does not apply: the second wins, its summary the first line.
  const Classification execute =
      classify(p.classes, failure("execute", "chip 0: out of DRAM executing op #3\nmore", FailureKind::Oom));
  EXPECT_EQ(execute.name, "ANY_DRAM");
  EXPECT_EQ(execute.summary, "chip 0: out of DRAM executing op #3");
  EXPECT_EQ(matching_classes(p.classes, failure("compile", message)).size(), 2u);
}

TEST(FailureClassesMatch, OutputRuleAndSummaryFallsBackToTheFirstLine) {
  const Parsed p = parse(kClasses);
  CaseResult r = failure("execute", "\n  device error 7  \nsecond");
  r.captured_output = "... TT_FATAL @ kernel.cpp:12 ...";
  const Classification c = classify(p.classes, r);
  EXPECT_EQ(c.name, "LOGGED");
  EXPECT_EQ(c.component, "a_project");
  EXPECT_EQ(c.summary, "device error 7");
}

TEST(FailureClassesMatch, FallbackWinsOnlyAloneAndUnclassifiedKeepsTheFirstLine) {
  const Parsed p = parse(kClasses);
  EXPECT_EQ(classify(p.classes, failure("load_model", "checkpoint is corrupt")).name, "LOAD_FALLBACK");
  EXPECT_EQ(classify(p.classes, failure("load_model", "no DRAM left")).name, "ANY_DRAM");
  const Classification none = classify(p.classes, failure("golden", "op #0 embedding: id 99\nstack"));
  EXPECT_EQ(none.name, kUnclassified);
  EXPECT_EQ(none.component, "");
  EXPECT_EQ(none.summary, "op #0 embedding: id 99");
}

TEST(FailureClassesMatch, RecordSetsFailedResultsOnlyAndClearsOthers) {
  const Parsed p = parse(kClasses);
  CaseResult r = failure("execute", "hung", FailureKind::Hang);
  for (Outcome o : {Outcome::Failed, Outcome::Error, Outcome::Xfailed}) {
    r.outcome = o;
    record_failure_class(p.classes, r);
    EXPECT_EQ(r.failure_class, "CRASH_OR_HANG_NOT_SEGV") << outcome_name(o);
    EXPECT_EQ(r.failure_component, "runtime");
    EXPECT_EQ(r.failure_summary, "hung");
  }
  for (Outcome o : {Outcome::Passed, Outcome::Skipped, Outcome::Xpassed}) {
    r.outcome = o;
    record_failure_class(p.classes, r);
    EXPECT_EQ(r.failure_class, "") << outcome_name(o);
    EXPECT_EQ(r.failure_component, "");
    EXPECT_EQ(r.failure_summary, "");
  }
}

// --- The bad-input catalogue -------------------------------------------------------

// One error a case records in docs/bad-inputs.md.
struct CataloguedError {
  std::string id;
  CaseResult result;
};

std::vector<std::string> code_spans(const std::string& line) {
  std::vector<std::string> out;
  const std::regex span("`([^`]*)`");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), span); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

// The rows of the catalogue whose quoted text is a case's recorded error:
// "<BRINGUP> in phase <phase> (<kind>): <message>", a loader error (phase
// discover), or a recorded tensor-file (load_inputs) or model-file
// (load_model) error. Spans after the first are parts of the same message.
std::vector<CataloguedError> catalogued_errors() {
  const std::string doc = testing::read_text_file(MESHTEST_SOURCE_DIR "/docs/bad-inputs.md");
  std::vector<CataloguedError> out;
  std::istringstream in(doc);
  std::string section;
  const std::regex in_phase(R"(^(?:.*\s)?[A-Z_]+ in phase ([a-z_]+)(?: \(([a-z]+)\))?(?:: (.*))?$)");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0) section = line;
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> spans = code_spans(line);
    const std::string id = spans.front();
    const size_t last_cell = line.rfind('|', line.size() - 2);
    spans = code_spans(line.substr(last_cell));
    CaseResult r;
    r.test_id = id;
    r.outcome = Outcome::Error;
    r.failure_kind = FailureKind::Exception;
    std::smatch m;
    size_t first = spans.size();
    for (size_t i = 0; i < spans.size() && first == spans.size(); ++i) {
      if (std::regex_match(spans[i], m, in_phase)) first = i;
    }
    std::string rest;
    for (size_t i = first == spans.size() ? 0 : first + 1; i < spans.size(); ++i) rest += " " + spans[i];
    if (first < spans.size()) {
      r.phase = m[1];
      if (m[2].matched) r.failure_kind = parse_failure_kind(m[2].str());
      r.error_message = m[3].str() + rest;
    } else if (section.find("Loaders and models roots") != std::string::npos ||
               rest.find("[loader error: ") != std::string::npos) {
      r.phase = "discover";
      const size_t at = rest.find("[loader error: ");
      r.error_message = at == std::string::npos ? rest : rest.substr(at + 15);
      if (!r.error_message.empty() && r.error_message.back() == ']') r.error_message.pop_back();
    } else if (section.find("Tensor files") != std::string::npos) {
      r.phase = "load_inputs";
      r.error_message = rest;
    } else if (section.find("ONNX models") != std::string::npos) {
      r.phase = "load_model";
      r.error_message = rest;
    } else {
      continue;  // a refusal of the run (exit 2), a passing case, or no case at all
    }
    out.push_back({id, r});
  }
  return out;
}

// Catalogue rows whose error is the loader's own text: only a catch-all can take them.
const std::set<std::string> kLoadersOwnMessages = {"loader_throws_load_model", "loader_throws_load_inputs",
                                                   "golden_fails"};

// What is wrong with the classes for the catalogue: rows UNCLASSIFIED, rows
// only a catch-all takes (but those of kLoadersOwnMessages), rows two
// specific classes take.
std::vector<std::string> catalogue_problems(const FailureClasses& classes) {
  std::vector<std::string> problems;
  for (const CataloguedError& e : catalogued_errors()) {
    const Classification c = classify(classes, e.result);
    const std::string where = e.id + " (phase " + e.result.phase + ", " +
                              std::string(failure_kind_name(e.result.failure_kind)) + ": " + e.result.error_message +
                              ")";
    if (c.name == kUnclassified) {
      problems.push_back(where + ": UNCLASSIFIED");
      continue;
    }
    std::vector<std::string> specific;
    for (const FailureClass* m : matching_classes(classes, e.result)) {
      if (!m->fallback) specific.push_back(m->name);
    }
    if (specific.empty() && !kLoadersOwnMessages.count(e.id))
      problems.push_back(where + ": only a fallback, " + c.name);
    if (specific.size() > 1) problems.push_back(where + ": " + specific[0] + " and " + specific[1] + " both match");
  }
  return problems;
}

TEST(FailureClassesCatalogue, ReadsTheRecordedErrorsOfTheBadInputCatalogue) {
  const std::vector<CataloguedError> errors = catalogued_errors();
  std::set<std::string> ids;
  for (const CataloguedError& e : errors) ids.insert(e.id);
  EXPECT_GE(errors.size(), 30u);
  for (const char* id : {"loader_segfault", "host_oom", "device_oom", "nan_outputs", "plugin_not_elf",
                         "safetensors_bad_dtype", "onnx_unsupported_op", "stablehlo_malformed"}) {
    EXPECT_TRUE(ids.count(id)) << id;
  }
}

TEST(FailureClassesCatalogue, EveryRecordedErrorHasOneSpecificShippedClass) {
  const std::vector<std::string> problems = catalogue_problems(shipped());
  EXPECT_TRUE(problems.empty()) << joined(problems);
}

TEST(FailureClassesCatalogue, TheCheckFailsWhenAClassIsMissing) {
  // Without the classes every catalogued error is UNCLASSIFIED, and the check says so.
  EXPECT_EQ(catalogue_problems(FailureClasses{}).size(), catalogued_errors().size());
  // Without DEVICE_DRAM_OOM, device_oom is no longer classified.
  FailureClasses without = shipped();
  std::erase_if(without.classes, [](const FailureClass& c) { return c.name == "DEVICE_DRAM_OOM"; });
  const std::string problems = joined(catalogue_problems(without));
  EXPECT_NE(problems.find("device_oom (phase compile, oom: out of device DRAM"), std::string::npos) << problems;
}

TEST(FailureClassesCatalogue, ShippedClassesNameTheExpectedClasses) {
  const FailureClasses classes = shipped();
  auto class_of = [&](const std::string& phase, const std::string& message, FailureKind kind) {
    return classify(classes, failure(phase, message, kind)).name;
  };
  EXPECT_EQ(class_of("execute", "worker crashed with SIGSEGV (Segmentation fault)", FailureKind::Crash),
            "CRASH_SIGSEGV");
  EXPECT_EQ(class_of("execute", "worker crashed with SIGFPE (Floating point exception)", FailureKind::Crash),
            "CRASH_SIGFPE");
  EXPECT_EQ(class_of("execute", "worker crashed with SIGUSR1 (User defined signal 1)", FailureKind::Crash),
            "CRASH_OTHER_SIGNAL");
  EXPECT_EQ(class_of("load_model", "worker killed by SIGKILL, likely the kernel's OOM killer (peak 1.0 MiB)",
                     FailureKind::Oom),
            "OOM_KILLER_SIGKILL");
  EXPECT_EQ(class_of("execute", "chip 0: out of L1 executing op #2 matmul: need 4096 bytes, 0 of 1024 in use",
                     FailureKind::Oom),
            "DEVICE_L1_OOM");
  EXPECT_EQ(class_of("compile", "PJRT_Client_Compile: INVALID_ARGUMENT: bad program", FailureKind::Exception),
            "PJRT_COMPILE_INVALID_ARGUMENT");
  EXPECT_EQ(class_of("compile", "PJRT_Client_Compile: NOT_FOUND: no such op", FailureKind::Exception),
            "PJRT_COMPILE_OTHER");
  EXPECT_EQ(class_of("execute", "PJRT_LoadedExecutable_Execute: INTERNAL: boom", FailureKind::Exception),
            "PJRT_INTERNAL");
  EXPECT_EQ(class_of("execute",
                     "PJRT_LoadedExecutable_Execute: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
                     "2.00GiB",
                     FailureKind::Oom),
            "XLA_OUT_OF_MEMORY");
  EXPECT_EQ(class_of("execute", "PJRT_Buffer_ToHostBuffer: INTERNAL: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
                     FailureKind::Exception),
            "CUDA_OUT_OF_MEMORY");
  EXPECT_EQ(class_of("compare", "output 'y': PCC 0.41 < required 0.99; L2 norm 1.5x the golden's (allowed 1 +- 0.02)",
                     FailureKind::None),
            "PCC_BELOW_THRESHOLD");
  EXPECT_EQ(class_of("compare", "output 'y': L2 norm 1.05x the golden's (allowed 1 +- 0.02)", FailureKind::None),
            "SCALE_MISMATCH");
  EXPECT_EQ(classify(classes, failure("compare", "gradient of fc.weight: PCC 0.5 < required 0.99", FailureKind::None))
                .summary,
            "fc.weight");
}

}  // namespace
}  // namespace meshtest::reports
