// A small YAML document tree built from yaml-cpp's parser events. Unlike
// YAML::Node it keeps every mapping key in order (duplicates included, so
// they can be reported), records 1-based positions, tells quoted from plain
// scalars, and rejects anchors and aliases. Building it is iterative, and the
// text is prescanned first (yaml_prescan.h), so no input can crash or hang it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/diagnostic.h"

namespace meshtest::config {

struct YamlNode {
  enum class Kind { Null, Scalar, Sequence, Map };
  Kind kind = Kind::Null;
  std::string value;    // Scalar text
  bool quoted = false;  // Scalar written quoted or as a block scalar: always a string
  int line = 0;         // 1-based
  int column = 0;       // 1-based
  // Sequence: the items. Map: key, value, key, value, ... in file order.
  std::vector<YamlNode> children;

  size_t map_size() const { return children.size() / 2; }
  const YamlNode& key(size_t i) const { return children[2 * i]; }
  const YamlNode& value_at(size_t i) const { return children[2 * i + 1]; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  // "'0.5'", "the string \"0.5\"", "a list", "a mapping", "nothing": the Y of "must be X, got Y".
  std::string describe() const;
  SourceLocation where(const std::string& file) const { return {file, line, column}; }
};

// Parses one YAML document. Problems (malformed YAML, anchors, aliases, more
// than one document) go to `diagnostics`; nullopt when the text cannot be
// parsed at all (an alias becomes a Null node, later documents are ignored).
// An empty document gives a Null node.
std::optional<YamlNode> parse_yaml(std::string_view text, const std::string& file,
                                   std::vector<Diagnostic>& diagnostics);

}  // namespace meshtest::config
