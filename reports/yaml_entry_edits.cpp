// Finding entries and fields in test_config YAML text by indentation.
#include "reports/yaml_entry_edits.h"

namespace meshtest::reports {

namespace {

size_t indent_of(const std::string& line) {
  size_t n = 0;
  while (n < line.size() && line[n] == ' ') ++n;
  return n;
}

bool is_blank_or_comment(const std::string& line) {
  const size_t n = indent_of(line);
  return n == line.size() || line[n] == '#' || line.find_first_not_of(" \t\r", n) == std::string::npos;
}

// "  key: value # c" -> is the line's key `key`? Accepts plain, "double" and 'single' quoted keys.
bool key_is(const std::string& line, const std::string& key) {
  const std::string body = line.substr(indent_of(line));
  for (const std::string& form : {key, "\"" + key + "\"", "'" + key + "'"}) {
    if (body.compare(0, form.size(), form) == 0 && body.size() > form.size() && body[form.size()] == ':' &&
        (body.size() == form.size() + 1 || body[form.size() + 1] == ' ' || body[form.size() + 1] == '\r')) {
      return true;
    }
  }
  return false;
}

// Splits "  name: value  # comment" into prefix "  name: ", value, suffix "  # comment".
struct FieldParts {
  std::string prefix, value, suffix;
};

FieldParts split_field(const std::string& line) {
  const size_t colon = line.find(':', indent_of(line));
  size_t v = colon + 1;
  while (v < line.size() && line[v] == ' ') ++v;
  size_t end = line.size();
  if (end > v && line[end - 1] == '\r') --end;
  // A comment starts at " #" outside quotes.
  char quote = 0;
  for (size_t i = v; i < end; ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && i > v && line[i - 1] == ' ') {
      end = i;
      break;
    }
  }
  size_t value_end = end;
  while (value_end > v && line[value_end - 1] == ' ') --value_end;
  return {line.substr(0, v), line.substr(v, value_end - v), line.substr(value_end)};
}

std::string unquote(const std::string& v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) return v.substr(1, v.size() - 2);
  return v;
}

}  // namespace

std::optional<YamlEntryEdits::Block> YamlEntryEdits::find_block(const std::string& id) const {
  for (size_t i = 0; i < edits_.size(); ++i) {
    const std::string& line = edits_.line(i);
    if (is_blank_or_comment(line) || !key_is(line, id)) continue;
    if (!split_field(line).value.empty()) return std::nullopt;  // flow style or scalar: not ours to edit
    Block b;
    b.key = i;
    b.end = i + 1;
    const size_t key_indent = indent_of(line);
    for (size_t j = i + 1; j < edits_.size(); ++j) {
      const std::string& l = edits_.line(j);
      if (is_blank_or_comment(l)) continue;
      if (indent_of(l) <= key_indent) break;
      if (b.field_indent == 0) b.field_indent = indent_of(l);
      b.end = j + 1;
    }
    if (b.field_indent == 0) b.field_indent = key_indent + 2;
    return b;
  }
  return std::nullopt;
}

std::optional<size_t> YamlEntryEdits::find_field(const Block& b, const std::string& name) const {
  for (size_t j = b.key + 1; j < b.end; ++j) {
    const std::string& l = edits_.line(j);
    if (!is_blank_or_comment(l) && indent_of(l) == b.field_indent && key_is(l, name)) return j;
  }
  return std::nullopt;
}

bool YamlEntryEdits::has_entry(const std::string& id) const { return find_block(id).has_value(); }

bool YamlEntryEdits::mentions(const std::string& id) const {
  for (size_t i = 0; i < edits_.size(); ++i) {
    if (!is_blank_or_comment(edits_.line(i)) && key_is(edits_.line(i), id)) return true;
  }
  return false;
}

std::optional<std::string> YamlEntryEdits::field(const std::string& id, const std::string& name) const {
  const auto b = find_block(id);
  if (!b) return std::nullopt;
  const auto at = find_field(*b, name);
  if (!at) return std::nullopt;
  return unquote(split_field(edits_.line(*at)).value);
}

void YamlEntryEdits::set_field(const std::string& id, const std::string& name, const std::string& value, bool first) {
  const auto b = find_block(id);
  if (!b) return;
  if (const auto at = find_field(*b, name)) {
    FieldParts parts = split_field(edits_.line(*at));
    const char q = parts.value.size() >= 2 && (parts.value.front() == '"' || parts.value.front() == '\'')
                       ? parts.value.front()
                       : 0;
    const std::string quoted = q ? std::string(1, q) + value + std::string(1, q) : value;
    edits_.replace(*at, parts.prefix + quoted + parts.suffix);
    return;
  }
  const std::string line = std::string(b->field_indent, ' ') + name + ": " + value;
  edits_.insert_before(first ? b->key + 1 : b->end, {line});
}

void YamlEntryEdits::erase_field(const std::string& id, const std::string& name) {
  const auto b = find_block(id);
  if (!b) return;
  const auto at = find_field(*b, name);
  if (!at) return;
  edits_.erase(*at);
  for (size_t j = *at + 1; j < b->end; ++j) {
    const std::string& l = edits_.line(j);
    if (!is_blank_or_comment(l) && indent_of(l) <= b->field_indent) break;
    if (!is_blank_or_comment(l)) edits_.erase(j);
  }
}

bool YamlEntryEdits::add_to_mapping_field(const std::string& id, const std::string& name, const std::string& key,
                                          const std::string& value) {
  const auto b = find_block(id);
  if (!b) return false;
  const auto at = find_field(*b, name);
  if (!at) {
    edits_.insert_before(b->end, {std::string(b->field_indent, ' ') + name + ":",
                                  std::string(b->field_indent + 2, ' ') + key + ": " + value});
    return true;
  }
  if (!split_field(edits_.line(*at)).value.empty()) return false;  // flow style: left to a person
  size_t child_indent = 0, after_children = *at + 1;
  for (size_t j = *at + 1; j < b->end; ++j) {
    const std::string& l = edits_.line(j);
    if (is_blank_or_comment(l)) continue;
    if (indent_of(l) <= b->field_indent) break;
    if (child_indent == 0) child_indent = indent_of(l);
    if (indent_of(l) == child_indent && key_is(l, key)) return false;
    after_children = j + 1;
  }
  if (child_indent == 0) child_indent = b->field_indent + 2;
  edits_.insert_before(after_children, {std::string(child_indent, ' ') + key + ": " + value});
  return true;
}

std::pair<size_t, size_t> YamlEntryEdits::entry_indents() const {
  for (size_t i = 0; i < edits_.size(); ++i) {
    if (!key_is(edits_.line(i), "test_config")) continue;
    for (size_t j = i + 1; j < edits_.size(); ++j) {
      if (is_blank_or_comment(edits_.line(j))) continue;
      const size_t key = indent_of(edits_.line(j));
      for (size_t k = j + 1; k < edits_.size(); ++k) {
        if (!is_blank_or_comment(edits_.line(k))) return {key, std::max(indent_of(edits_.line(k)), key + 1)};
      }
      return {key, key + 2};
    }
  }
  return {2, 4};
}

void YamlEntryEdits::add_entry(const std::string& id, const std::vector<std::pair<std::string, std::string>>& fields) {
  const auto [key_indent, field_indent] = entry_indents();
  // After the last non-blank, non-comment line of the test_config mapping.
  size_t top = edits_.size(), end = edits_.size();
  for (size_t i = 0; i < edits_.size(); ++i) {
    if (key_is(edits_.line(i), "test_config") && indent_of(edits_.line(i)) == 0) top = i;
  }
  if (top == edits_.size()) {
    edits_.insert_before(edits_.size(), {"test_config:"});
  } else {
    end = top + 1;
    for (size_t j = top + 1; j < edits_.size(); ++j) {
      const std::string& l = edits_.line(j);
      if (is_blank_or_comment(l)) continue;
      if (indent_of(l) == 0) break;
      end = j + 1;
    }
  }
  std::vector<std::string> lines = {std::string(key_indent, ' ') + id + ":"};
  for (const auto& [name, value] : fields) lines.push_back(std::string(field_indent, ' ') + name + ": " + value);
  edits_.insert_before(end, lines);
}

}  // namespace meshtest::reports
