// Loading test_config files: the file set, each document's top level
// (test_config, PLACEHOLDER_MODELS), and merging with duplicate detection
// within and across files.
#include "config/test_config.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "config/entry_reader.h"
#include "config/nearest_name.h"
#include "config/yaml_tree.h"

namespace meshtest::config {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTestConfigKey = "test_config";
constexpr std::string_view kPlaceholdersKey = "PLACEHOLDER_MODELS";

const std::vector<std::string>& top_level_keys() {
  static const std::vector<std::string> keys = {std::string(kTestConfigKey), std::string(kPlaceholdersKey)};
  return keys;
}

// Inserts `value` under `key` unless it is there already, in which case the
// second place is reported naming the first.
template <class T>
void insert_unique(std::map<std::string, T>& into, const std::string& key, T value, const SourceLocation& where,
                   const std::string& what, std::vector<Diagnostic>& diags,
                   const SourceLocation& (*location_of)(const T&)) {
  auto [it, inserted] = into.emplace(key, std::move(value));
  if (!inserted) {
    diags.push_back({where, "duplicate " + what + " '" + key + "' (first defined at " +
                                location_of(it->second).to_string() + ")"});
  }
}

const SourceLocation& entry_location(const TestEntry& e) { return e.defined_at; }
const SourceLocation& placeholder_location(const Placeholder& p) { return p.entry.defined_at; }

// Calls `each(key, value)` for every entry of a `test_config:` or
// `PLACEHOLDER_MODELS:` mapping whose key is a usable name.
template <class Each>
void for_each_named(const YamlNode& section, std::string_view section_name, ValueReader& reader, Each each) {
  if (section.kind == YamlNode::Kind::Null) return;  // an empty section
  if (section.kind != YamlNode::Kind::Map) {
    reader.error(section, "'" + std::string(section_name) + "' must be a mapping, got " + section.describe());
    return;
  }
  for (size_t i = 0; i < section.map_size(); ++i) {
    const YamlNode& key = section.key(i);
    if (!key.is_scalar() || key.value.empty()) {
      reader.error(key, "names in '" + std::string(section_name) + "' must be non-empty strings, got " +
                            key.describe());
      continue;
    }
    each(key, section.value_at(i));
  }
}

std::string read_file(const std::string& path, std::vector<Diagnostic>& diags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.push_back({{path, 1, 1}, "cannot read file"});
    return {};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string placeholder_test_id(std::string_view name) {
  std::string id = "placeholder/";
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    id += std::isspace(u) ? '_' : static_cast<char>(std::tolower(u));
  }
  return id;
}

namespace {

// One file's entries and problems, before merging with the other files.
struct FileConfig {
  TestConfig config;
  std::vector<Diagnostic> diags;
};

void parse_file_text(std::string_view text, const std::string& file, TestConfig& config,
                     std::vector<Diagnostic>& diags) {
  config.files.push_back(file);
  const std::optional<YamlNode> root = parse_yaml(text, file, diags);
  if (!root || root->kind == YamlNode::Kind::Null) return;
  ValueReader reader(file, diags);
  if (root->kind != YamlNode::Kind::Map) {
    reader.error(*root, "expected a top-level 'test_config:' or 'PLACEHOLDER_MODELS:' mapping, got " +
                            root->describe());
    return;
  }
  EntryReader entries(reader);
  std::map<std::string, const YamlNode*> seen;
  for (size_t i = 0; i < root->map_size(); ++i) {
    const YamlNode& key = root->key(i);
    const YamlNode& section = root->value_at(i);
    if (!key.is_scalar() || !std::count(top_level_keys().begin(), top_level_keys().end(), key.value)) {
      std::string message = "unknown top-level key " + key.describe();
      if (auto near = did_you_mean(key.value, top_level_keys())) message += " (did you mean '" + *near + "'?)";
      reader.error(key, message + "; a test_config file holds 'test_config:' and/or 'PLACEHOLDER_MODELS:'");
      continue;
    }
    if (auto [it, inserted] = seen.emplace(key.value, &key); !inserted) {
      reader.error(key, "duplicate key '" + key.value + "' (first at " + it->second->where(file).to_string() + ")");
      continue;
    }
    if (key.value == kTestConfigKey) {
      for_each_named(section, kTestConfigKey, reader, [&](const YamlNode& id, const YamlNode& body) {
        insert_unique(config.entries, id.value, entries.read_entry(id, body), id.where(file), "test id", diags,
                      entry_location);
      });
    } else {
      for_each_named(section, kPlaceholdersKey, reader, [&](const YamlNode& name, const YamlNode& body) {
        insert_unique(config.placeholders, placeholder_test_id(name.value), entries.read_placeholder(name, body),
                      name.where(file), "placeholder", diags, placeholder_location);
      });
    }
  }
}

// Adds one file's result to the merged config; an id or placeholder already
// defined by an earlier file is reported at this file's place.
void merge(FileConfig&& part, TestConfig& into, std::vector<Diagnostic>& diags) {
  diags.insert(diags.end(), std::make_move_iterator(part.diags.begin()), std::make_move_iterator(part.diags.end()));
  into.files.insert(into.files.end(), part.config.files.begin(), part.config.files.end());
  for (auto& [id, entry] : part.config.entries) {
    const SourceLocation where = entry.defined_at;
    insert_unique(into.entries, id, std::move(entry), where, "test id", diags, entry_location);
  }
  for (auto& [id, placeholder] : part.config.placeholders) {
    const SourceLocation where = placeholder.entry.defined_at;
    insert_unique(into.placeholders, id, std::move(placeholder), where, "placeholder", diags, placeholder_location);
  }
}

// Reads and parses every file, on as many threads as there are cores (the
// files are independent; yaml-cpp's scanner is the cost), then merges them
// in path order so the result and its diagnostics do not depend on timing.
std::vector<FileConfig> parse_files(const std::vector<std::string>& files) {
  std::vector<FileConfig> parts(files.size());
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i; (i = next++) < files.size();) {
      const std::string text = read_file(files[i], parts[i].diags);
      parse_file_text(text, files[i], parts[i].config, parts[i].diags);
    }
  };
  const size_t threads = std::min<size_t>(files.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return parts;
}

}  // namespace

void load_test_config_text(std::string_view text, const std::string& file, TestConfig& config,
                           std::vector<Diagnostic>& diags) {
  FileConfig part;
  parse_file_text(text, file, part.config, part.diags);
  merge(std::move(part), config, diags);
}

bool is_test_config_file(const std::string& path) {
  const fs::path p(path);
  const auto ext = p.extension();
  return (ext == ".yaml" || ext == ".yml") && p.filename() != kFailureReasonsFileName &&
         p.parent_path().filename() != kFailureReasonsDirName;
}

TestConfig load_test_config(const std::string& path, std::vector<Diagnostic>& diagnostics) {
  TestConfig config;
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    files.push_back(path);
  } else if (fs::is_directory(path, ec)) {
    for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
      if (entry.is_regular_file(ec) && is_test_config_file(entry.path().string())) files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  for (FileConfig& part : parse_files(files)) merge(std::move(part), config, diagnostics);
  return config;
}

}  // namespace meshtest::config
