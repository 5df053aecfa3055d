// Loading, validating and applying failure classes (see failure_classes.h).
#include "reports/failure_classes.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "config/nearest_name.h"
#include "config/value_reader.h"
#include "config/yaml_tree.h"

namespace meshtest::reports {

namespace {

namespace fs = std::filesystem;
using config::ValueReader;
using config::YamlNode;

const char* const kTopLevelKey = "failure_classes";
const std::vector<std::string> kClassKeys = {"name",  "description", "component", "phases",
                                             "match", "summary",     "fallback"};
const std::vector<std::string> kRuleKeys = {
    "message", "message_contains", "output", "output_contains", "kind", "signal", "all", "any", "not"};
const std::vector<std::string> kKindNames = {"exception", "crash", "hang", "timeout", "oom", "none"};

// The keys of a mapping, each reported once when it appears twice.
std::map<std::string, const YamlNode*> unique_keys(const YamlNode& map, const std::vector<std::string>& allowed,
                                                   std::string_view noun, ValueReader& reader) {
  std::map<std::string, const YamlNode*> out;
  for (size_t i = 0; i < map.map_size(); ++i) {
    const YamlNode& key = map.key(i);
    if (!key.is_scalar() || std::find(allowed.begin(), allowed.end(), key.value) == allowed.end()) {
      reader.error(key, config::unknown_name_message(noun, key.value, allowed));
      continue;
    }
    if (auto [it, inserted] = out.emplace(key.value, &map.value_at(i)); !inserted) {
      reader.error(key, "duplicate key '" + key.value + "'");
    }
  }
  return out;
}

const YamlNode& key_of(const YamlNode& map, const YamlNode* value) {
  for (size_t i = 0; i < map.map_size(); ++i) {
    if (&map.value_at(i) == value) return map.key(i);
  }
  return map;
}

std::optional<std::regex> compile_regex(const YamlNode& node, std::string_view field, ValueReader& reader) {
  const std::optional<std::string> text = reader.string(node, field);
  if (!text) return std::nullopt;
  if (text->empty()) {
    reader.error(node, "field '" + std::string(field) + "' must not be empty");
    return std::nullopt;
  }
  try {
    return std::regex(*text, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    reader.error(node, "bad regex '" + *text + "' in field '" + std::string(field) + "': " + e.what());
    return std::nullopt;
  }
}

std::optional<MatchRule> read_rule(const YamlNode& node, ValueReader& reader, int depth);

std::optional<std::vector<MatchRule>> read_rule_list(const YamlNode& node, std::string_view field, ValueReader& reader,
                                                     int depth) {
  if (node.kind != YamlNode::Kind::Sequence || node.children.empty()) {
    reader.error(node, "'" + std::string(field) + "' takes a non-empty list of rules, got " + node.describe());
    return std::nullopt;
  }
  std::vector<MatchRule> rules;
  bool ok = true;
  for (const YamlNode& item : node.children) {
    std::optional<MatchRule> rule = read_rule(item, reader, depth + 1);
    if (rule)
      rules.push_back(std::move(*rule));
    else
      ok = false;
  }
  if (!ok) return std::nullopt;
  return rules;
}

// A rule: a mapping with exactly one key of kRuleKeys.
std::optional<MatchRule> read_rule(const YamlNode& node, ValueReader& reader, int depth) {
  using K = MatchRule::Kind;
  if (depth > 16) {
    reader.error(node, "rules nested more than 16 levels deep");
    return std::nullopt;
  }
  if (node.kind != YamlNode::Kind::Map) {
    reader.error(
        node, "a match rule is a mapping with one of: " + config::join_names(kRuleKeys) + "; got " + node.describe());
    return std::nullopt;
  }
  const auto keys = unique_keys(node, kRuleKeys, "match rule", reader);
  if (keys.size() != 1 || node.map_size() != 1) {
    if (keys.size() == node.map_size()) {
      reader.error(node, "a match rule has exactly one key (combine several with all: or any:), got " +
                             std::to_string(node.map_size()));
    }
    return std::nullopt;
  }
  const auto& [key, value] = *keys.begin();
  MatchRule rule;
  if (key == "all" || key == "any") {
    rule.kind = key == "all" ? K::All : K::Any;
    auto rules = read_rule_list(*value, key, reader, depth);
    if (!rules) return std::nullopt;
    rule.rules = std::move(*rules);
    return rule;
  }
  if (key == "not") {
    rule.kind = K::Not;
    std::optional<MatchRule> inner = read_rule(*value, reader, depth + 1);
    if (!inner) return std::nullopt;
    rule.rules.push_back(std::move(*inner));
    return rule;
  }
  const std::optional<std::string> text = reader.string(*value, key);
  if (!text) return std::nullopt;
  rule.text = *text;
  if (key == "message" || key == "output") {
    rule.kind = key == "message" ? K::MessageRegex : K::OutputRegex;
    rule.regex = compile_regex(*value, key, reader);
    if (!rule.regex) return std::nullopt;
  } else if (key == "message_contains" || key == "output_contains") {
    rule.kind = key == "message_contains" ? K::MessageContains : K::OutputContains;
    if (text->empty()) {
      reader.error(*value, "field '" + key + "' must not be empty");
      return std::nullopt;
    }
  } else if (key == "kind") {
    rule.kind = K::FailureKindIs;
    if (std::find(kKindNames.begin(), kKindNames.end(), *text) == kKindNames.end()) {
      reader.error(*value, config::unknown_name_message("failure kind", *text, kKindNames));
      return std::nullopt;
    }
  } else {  // signal
    rule.kind = K::SignalIs;
    if (!std::regex_match(*text, std::regex("SIG[A-Z0-9]+"))) {
      reader.error(*value, "field 'signal' must be a signal name such as SIGSEGV, got " + value->describe());
      return std::nullopt;
    }
    rule.regex = std::regex("\\b" + *text + "\\b");
  }
  return rule;
}

bool read_phases(const YamlNode& node, ValueReader& reader, std::vector<std::string>& out) {
  const std::optional<std::vector<std::string>> phases = reader.string_list(node, "phases");
  if (!phases) return false;
  bool ok = true;
  const std::vector<std::string>& known = failure_phase_names();
  for (const std::string& p : *phases) {
    if (std::find(known.begin(), known.end(), p) == known.end()) {
      reader.error(node, config::unknown_name_message("phase", p, known));
      ok = false;
    } else if (std::find(out.begin(), out.end(), p) == out.end()) {
      out.push_back(p);
    }
  }
  return ok;
}

std::optional<FailureClass> read_class(const YamlNode& node, ValueReader& reader) {
  if (node.kind != YamlNode::Kind::Map) {
    reader.error(node, "a failure class is a mapping (name, description, component, phases, match, summary), got " +
                           node.describe());
    return std::nullopt;
  }
  const auto keys = unique_keys(node, kClassKeys, "failure class key", reader);
  bool ok = keys.size() == node.map_size();
  FailureClass c;
  c.defined_at = node.where(reader.file());
  const auto name = keys.find("name");
  if (name == keys.end()) {
    reader.error(node, "a failure class needs a 'name'");
    return std::nullopt;
  }
  c.defined_at = name->second->where(reader.file());
  if (const auto text = reader.string(*name->second, "name")) {
    c.name = *text;
    if (!std::regex_match(c.name, std::regex("[A-Za-z0-9_.-]+"))) {
      reader.error(*name->second, "a class name is letters, digits, '_', '.' and '-', got " + name->second->describe());
      ok = false;
    } else if (c.name == kUnclassified) {
      reader.error(*name->second, std::string("'") + kUnclassified + "' is reserved for failures no class matches");
      ok = false;
    }
  } else {
    ok = false;
  }
  const auto component = keys.find("component");
  if (component == keys.end()) {
    reader.error(*name->second, "failure class '" + c.name + "' needs a 'component' (" +
                                    config::join_names(known_failure_components()) + ", or a project's own)");
    ok = false;
  } else if (const auto text = reader.string(*component->second, "component")) {
    c.component = *text;
    if (c.component.empty()) {
      reader.error(*component->second, "field 'component' must not be empty");
      ok = false;
    }
  } else {
    ok = false;
  }
  if (const auto it = keys.find("description"); it != keys.end()) {
    if (const auto text = reader.string(*it->second, "description"))
      c.description = *text;
    else
      ok = false;
  }
  if (const auto it = keys.find("phases"); it != keys.end()) ok = read_phases(*it->second, reader, c.phases) && ok;
  if (const auto it = keys.find("match"); it != keys.end()) {
    const YamlNode& match = *it->second;
    if (match.kind == YamlNode::Kind::Sequence) {  // a list: all of them
      auto rules = read_rule_list(match, "match", reader, 0);
      if (rules) c.rule = MatchRule{MatchRule::Kind::All, "", std::nullopt, std::move(*rules)};
    } else {
      c.rule = read_rule(match, reader, 0);
    }
    ok = c.rule.has_value() && ok;
  }
  if (const auto it = keys.find("summary"); it != keys.end()) {
    c.summary = compile_regex(*it->second, "summary", reader);
    if (!c.summary) {
      ok = false;
    } else if (c.summary->mark_count() == 0) {
      reader.error(*it->second, "field 'summary' needs a group, '(...)': the group it matches is the summary");
      ok = false;
    }
  }
  if (const auto it = keys.find("fallback"); it != keys.end()) {
    const std::optional<bool> value = reader.boolean(*it->second, "fallback");
    c.fallback = value.value_or(false);
    ok = value.has_value() && ok;
  }
  if (!ok) return std::nullopt;
  return c;
}

// Whether every phase `later` applies to is one `earlier` applies to.
bool covers_phases(const FailureClass& earlier, const FailureClass& later) {
  if (earlier.phases.empty()) return true;
  if (later.phases.empty()) return false;
  return std::all_of(later.phases.begin(), later.phases.end(), [&](const std::string& p) {
    return std::find(earlier.phases.begin(), earlier.phases.end(), p) != earlier.phases.end();
  });
}

// The earlier class that matches every failure `later` matches: no rules, or
// the same rules, in the same or more phases.
const FailureClass* shadowing_class(const std::vector<FailureClass>& earlier, const FailureClass& later) {
  for (const FailureClass& e : earlier) {
    if (!covers_phases(e, later)) continue;
    if (!e.rule || (later.rule && e.rule->canonical() == later.rule->canonical())) return &e;
  }
  return nullptr;
}

void check_classes(std::vector<FailureClass>& classes, std::vector<config::Diagnostic>& diagnostics) {
  std::vector<FailureClass> kept;
  std::map<std::string, config::SourceLocation> names;
  for (FailureClass& c : classes) {
    if (auto [it, inserted] = names.emplace(c.name, c.defined_at); !inserted) {
      diagnostics.push_back(
          {c.defined_at, "duplicate failure class '" + c.name + "' (first defined at " + it->second.to_string() + ")"});
      continue;
    }
    if (const FailureClass* e = shadowing_class(kept, c)) {
      diagnostics.push_back({c.defined_at, "failure class '" + c.name + "' can never match: '" + e->name + "' (" +
                                               e->defined_at.to_string() + ") comes first and matches every " +
                                               "failure it would (" + (e->rule ? "the same rules" : "no rules") +
                                               " in " + (e->phases.empty() ? "every phase" : "the same phases") + ")"});
      continue;
    }
    kept.push_back(std::move(c));
  }
  classes = std::move(kept);
}

std::string read_text(const std::string& path, std::vector<config::Diagnostic>& diagnostics) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diagnostics.push_back({{path, 1, 1}, "cannot read the failure classes file"});
    return "";
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first group that took part in `summary`'s match in `message`.
std::optional<std::string> summary_group(const std::regex& summary, const std::string& message) {
  std::smatch m;
  if (!std::regex_search(message, m, summary)) return std::nullopt;
  for (size_t i = 1; i < m.size(); ++i) {
    if (m[i].matched) return first_line(m[i].str());
  }
  return std::nullopt;
}

void warn_overlap(const FailureClass& first, const FailureClass& second, const CaseResult& result) {
  static std::mutex mutex;
  static std::set<std::pair<std::string, std::string>> warned;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!warned.emplace(first.name, second.name).second) return;
  }
  spdlog::warn("failure classes '{}' ({}) and '{}' ({}) both match {} (the first wins); make one of them narrower",
               first.name, first.defined_at.to_string(), second.name, second.defined_at.to_string(), result.test_id);
}

}  // namespace

std::string MatchRule::canonical() const {
  auto list = [this](const char* op) {
    std::string out = std::string(op) + "(";
    for (size_t i = 0; i < rules.size(); ++i) out += (i ? ", " : "") + rules[i].canonical();
    return out + ")";
  };
  switch (kind) {
    case Kind::MessageRegex:
      return "message~/" + text + "/";
    case Kind::MessageContains:
      return "message@'" + text + "'";
    case Kind::OutputRegex:
      return "output~/" + text + "/";
    case Kind::OutputContains:
      return "output@'" + text + "'";
    case Kind::FailureKindIs:
      return "kind=" + text;
    case Kind::SignalIs:
      return "signal=" + text;
    case Kind::All:
      return list("all");
    case Kind::Any:
      return list("any");
    case Kind::Not:
      return list("not");
  }
  return "?";
}

bool MatchRule::matches(const CaseResult& r) const {
  switch (kind) {
    case Kind::MessageRegex:
      return std::regex_search(r.error_message, *regex);
    case Kind::MessageContains:
      return r.error_message.find(text) != std::string::npos;
    case Kind::OutputRegex:
      return std::regex_search(r.captured_output, *regex);
    case Kind::OutputContains:
      return r.captured_output.find(text) != std::string::npos;
    case Kind::FailureKindIs:
      return text == "none" ? r.failure_kind == FailureKind::None : failure_kind_name(r.failure_kind) == text;
    case Kind::SignalIs:
      return r.failure_kind != FailureKind::None && r.failure_kind != FailureKind::Exception &&
             std::regex_search(r.error_message, *regex);
    case Kind::All:
      return std::all_of(rules.begin(), rules.end(), [&](const MatchRule& m) { return m.matches(r); });
    case Kind::Any:
      return std::any_of(rules.begin(), rules.end(), [&](const MatchRule& m) { return m.matches(r); });
    case Kind::Not:
      return !rules.front().matches(r);
  }
  return false;
}

bool FailureClass::applies_to_phase(std::string_view phase) const {
  return phases.empty() || std::find(phases.begin(), phases.end(), phase) != phases.end();
}

bool FailureClass::matches(const CaseResult& result) const {
  return applies_to_phase(result.phase) && (!rule || rule->matches(result));
}

const std::vector<std::string>& failure_phase_names() {
  static const std::vector<std::string> kPhases = {"discover", "load_model", "load_inputs", "golden",
                                                   "compile",  "execute",    "compare"};
  return kPhases;
}

const std::vector<std::string>& known_failure_components() {
  static const std::vector<std::string> kComponents = {"frontend", "compiler",   "runtime",
                                                       "device",   "comparison", "infrastructure"};
  return kComponents;
}

namespace {

// The classes of one file, in file order, each checked on its own (the checks
// across classes are check_classes's).
void read_classes(std::string_view text, const std::string& file, std::vector<FailureClass>& classes,
                  std::vector<config::Diagnostic>& diagnostics) {
  const std::optional<YamlNode> root = config::parse_yaml(text, file, diagnostics);
  if (!root || root->kind == YamlNode::Kind::Null) return;
  ValueReader reader(file, diagnostics);
  if (root->kind != YamlNode::Kind::Map) {
    reader.error(*root, std::string("expected a top-level '") + kTopLevelKey + ":' list, got " + root->describe());
    return;
  }
  const auto keys = unique_keys(*root, {kTopLevelKey}, "top-level key", reader);
  const auto list = keys.find(kTopLevelKey);
  if (list == keys.end()) return;
  if (list->second->kind == YamlNode::Kind::Null) return;
  if (list->second->kind != YamlNode::Kind::Sequence) {
    reader.error(key_of(*root, list->second),
                 std::string("'") + kTopLevelKey + "' takes a list of classes, got " + list->second->describe());
    return;
  }
  for (const YamlNode& item : list->second->children) {
    if (std::optional<FailureClass> c = read_class(item, reader)) classes.push_back(std::move(*c));
  }
}

// The *.yaml files of a failure_reasons folder, in name order.
std::vector<std::string> folder_files(const fs::path& folder) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const auto ext = entry.path().extension();
    if (entry.is_regular_file(ec) && (ext == ".yaml" || ext == ".yml")) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

FailureClasses parse_failure_classes(std::string_view text, const std::string& file,
                                     std::vector<config::Diagnostic>& diagnostics) {
  FailureClasses out;
  out.file = file;
  read_classes(text, file, out.classes, diagnostics);
  check_classes(out.classes, diagnostics);
  return out;
}

FailureClasses load_failure_classes(const std::string& path, std::vector<config::Diagnostic>& diagnostics) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    const size_t before = diagnostics.size();
    const std::string text = read_text(path, diagnostics);
    if (diagnostics.size() != before) return {path, {}};
    return parse_failure_classes(text, path, diagnostics);
  }
  FailureClasses out;
  out.file = path;
  const fs::path twin = fs::path(path).parent_path() / kFailureReasonsFile;
  if (fs::exists(twin, ec)) {
    diagnostics.push_back({{twin.string(), 1, 1},
                           "failure classes in both this file and the folder " + path +
                               ": keep one (the folder's files load in name order)"});
  }
  const std::vector<std::string> files = folder_files(path);
  if (files.empty()) diagnostics.push_back({{path, 1, 1}, "the failure classes folder holds no *.yaml file"});
  for (const std::string& file : files) {
    const size_t before = diagnostics.size();
    const std::string text = read_text(file, diagnostics);
    if (diagnostics.size() == before) read_classes(text, file, out.classes, diagnostics);
  }
  check_classes(out.classes, diagnostics);  // across files: duplicates, shadowing
  return out;
}

std::string find_failure_reasons(const std::string& config_dir, const std::string& shipped_dir) {
  std::error_code ec;
  fs::path dir = config_dir;
  if (fs::is_regular_file(dir, ec)) dir = dir.parent_path();
  for (const fs::path& base : {dir, fs::path(shipped_dir)}) {
    if (base.empty()) continue;
    if (fs::is_directory(base / kFailureReasonsFolder, ec)) return (base / kFailureReasonsFolder).string();
    if (fs::is_regular_file(base / kFailureReasonsFile, ec)) return (base / kFailureReasonsFile).string();
  }
  return "";
}

bool needs_failure_class(Outcome outcome) {
  return outcome == Outcome::Failed || outcome == Outcome::Error || outcome == Outcome::Xfailed;
}

std::string first_line(std::string_view message) {
  const size_t start = message.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "";
  message.remove_prefix(start);
  std::string_view line = message.substr(0, message.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.remove_suffix(1);
  constexpr size_t kMax = 200;
  return line.size() <= kMax ? std::string(line) : std::string(line.substr(0, kMax)) + "...";
}

std::vector<const FailureClass*> matching_classes(const FailureClasses& classes, const CaseResult& result) {
  std::vector<const FailureClass*> out;
  for (const FailureClass& c : classes.classes) {
    if (c.matches(result)) out.push_back(&c);
  }
  return out;
}

Classification classify(const FailureClasses& classes, const CaseResult& result) {
  const FailureClass* winner = nullptr;
  for (const FailureClass& c : classes.classes) {
    if (winner && c.fallback) continue;
    if (!c.matches(result)) continue;
    if (!winner) {
      winner = &c;
      if (c.fallback) break;  // only fallbacks follow a fallback in a sound file; none of them is news
      continue;
    }
    warn_overlap(*winner, c, result);
    break;
  }
  if (!winner) return {kUnclassified, "", first_line(result.error_message)};
  std::optional<std::string> summary;
  if (winner->summary) summary = summary_group(*winner->summary, result.error_message);
  return {winner->name, winner->component, summary ? *summary : first_line(result.error_message)};
}

void record_failure_class(const FailureClasses& classes, CaseResult& result) {
  if (!needs_failure_class(result.outcome)) {
    result.failure_class.clear();
    result.failure_component.clear();
    result.failure_summary.clear();
    return;
  }
  Classification c = classify(classes, result);
  result.failure_class = std::move(c.name);
  result.failure_component = std::move(c.component);
  result.failure_summary = std::move(c.summary);
}

}  // namespace meshtest::reports
