// Loading test_config YAML files into TestEntry records with positioned diagnostics.
#include "config/test_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <functional>

namespace meshtest::config {

namespace {

namespace fs = std::filesystem;

SourceLocation at(const std::string& file, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  return {file, m.line + 1, m.column + 1};
}

class EntryReader {
 public:
  EntryReader(std::string file, std::vector<Diagnostic>& diags) : file_(std::move(file)), diags_(diags) {}

  void error(const YAML::Node& node, const std::string& message) { diags_.push_back({at(file_, node), message}); }

  std::optional<double> number(const YAML::Node& node, const std::string& field, double lo, double hi) {
    try {
      const double v = node.as<double>();
      if (v < lo || v > hi) {
        error(node, "field '" + field + "' must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
        return std::nullopt;
      }
      return v;
    } catch (const YAML::Exception&) {
      error(node, "field '" + field + "' must be a number");
      return std::nullopt;
    }
  }

  std::optional<bool> boolean(const YAML::Node& node, const std::string& field) {
    try {
      return node.as<bool>();
    } catch (const YAML::Exception&) {
      error(node, "field '" + field + "' must be true or false");
      return std::nullopt;
    }
  }

  std::string scalar(const YAML::Node& node, const std::string& field) {
    if (!node.IsScalar()) {
      error(node, "field '" + field + "' must be a string");
      return {};
    }
    return node.Scalar();
  }

  TestEntry read(const YAML::Node& key, const YAML::Node& body) {
    TestEntry e;
    e.defined_at = at(file_, key);
    if (!body.IsMap()) {
      error(body, "entry for '" + key.Scalar() + "' must be a mapping of fields");
      return e;
    }
    const std::map<std::string, std::function<void(const YAML::Node&)>> fields = {
        {"status", [&](const YAML::Node& n) {
           const std::string s = scalar(n, "status");
           if (auto v = parse_status(s)) e.status = *v;
           else error(n, "invalid status '" + s + "' (allowed: " + join(all_status_names()) + ")");
         }},
        {"reason", [&](const YAML::Node& n) { e.reason = scalar(n, "reason"); }},
        {"bringup_status", [&](const YAML::Node& n) {
           const std::string s = scalar(n, "bringup_status");
           if (auto v = parse_bringup(s)) e.bringup_status = v;
           else error(n, "invalid bringup_status '" + s + "' (allowed: " + join(all_bringup_names()) + ")");
         }},
        {"required_pcc", [&](const YAML::Node& n) { e.required_pcc = number(n, "required_pcc", 0.0, 1.0); }},
        {"assert_pcc", [&](const YAML::Node& n) { e.assert_pcc = boolean(n, "assert_pcc"); }},
        {"required_atol", [&](const YAML::Node& n) { e.required_atol = number(n, "required_atol", 0.0, 1e30); }},
        {"assert_atol", [&](const YAML::Node& n) { e.assert_atol = boolean(n, "assert_atol"); }},
        {"assert_allclose", [&](const YAML::Node& n) { e.assert_allclose = boolean(n, "assert_allclose"); }},
        {"allclose_rtol", [&](const YAML::Node& n) { e.allclose_rtol = number(n, "allclose_rtol", 0.0, 1e30); }},
        {"allclose_atol", [&](const YAML::Node& n) { e.allclose_atol = number(n, "allclose_atol", 0.0, 1e30); }},
        {"markers", [&](const YAML::Node& n) {
           if (n.IsScalar()) e.markers.push_back(n.Scalar());
           else if (n.IsSequence()) for (const auto& m : n) e.markers.push_back(scalar(m, "markers"));
           else error(n, "field 'markers' must be a string or a list of strings");
         }},
    };
    for (const auto& kv : body) {
      const std::string name = kv.first.Scalar();
      auto it = fields.find(name);
      if (it == fields.end()) {
        error(kv.first, "unknown field '" + name + "'");
        continue;
      }
      it->second(kv.second);
    }
    return e;
  }

 private:
  static std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  }

  std::string file_;
  std::vector<Diagnostic>& diags_;
};

void load_file(const std::string& file, TestConfig& config, std::vector<Diagnostic>& diags) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    diags.push_back({{file, e.mark.line + 1, e.mark.column + 1}, "malformed YAML: " + e.msg});
    return;
  }
  if (!root || root.IsNull()) return;
  const YAML::Node tests = root.IsMap() ? root["test_config"] : YAML::Node();
  if (!tests) {
    diags.push_back({at(file, root), "expected a top-level 'test_config:' mapping"});
    return;
  }
  if (!tests.IsMap()) {
    diags.push_back({at(file, tests), "'test_config' must map test ids to entries"});
    return;
  }
  EntryReader reader(file, diags);
  for (const auto& kv : tests) {
    const std::string id = kv.first.Scalar();
    TestEntry entry = reader.read(kv.first, kv.second);
    auto [it, inserted] = config.entries.emplace(id, entry);
    if (!inserted) {
      diags.push_back({entry.defined_at, "duplicate test id '" + id + "' (first defined at " +
                                             it->second.defined_at.to_string() + ")"});
    }
  }
}

}  // namespace

TestConfig load_test_config(const std::string& dir, std::vector<Diagnostic>& diagnostics) {
  TestConfig config;
  if (!fs::is_directory(dir)) return config;
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && (entry.path().extension() == ".yaml" || entry.path().extension() == ".yml")) {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) load_file(f, config, diagnostics);
  return config;
}

}  // namespace meshtest::config
