// yaml-cpp event handler that builds a YamlNode tree (see yaml_tree.h).
#include "config/yaml_tree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <sstream>

#include "config/yaml_prescan.h"

namespace meshtest::config {

std::string YamlNode::describe() const {
  switch (kind) {
    case Kind::Null: return "nothing";
    case Kind::Scalar: return quoted ? "the string \"" + value + "\"" : "'" + value + "'";
    case Kind::Sequence: return "a list";
    case Kind::Map: return "a mapping";
  }
  return "?";
}

namespace {

class TreeBuilder : public YAML::EventHandler {
 public:
  TreeBuilder(std::string_view text, const std::string& file, std::vector<Diagnostic>& diags)
      : text_(text), file_(file), diags_(diags) {}

  std::optional<YamlNode>& root() { return root_; }
  int documents() const { return documents_; }
  // yaml-cpp 0.7 starts document after empty document at the same place,
  // forever, when a document begins with a stray ',' (yaml-cpp issue #1040);
  // the parse loop stops once that happens.
  bool stuck() const { return stuck_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (documents_ > 0 && mark.pos == last_document_pos_) {
      stuck_ = true;
      error(mark, "malformed YAML: unexpected character '" + std::string(1, text_at(mark)) + "'");
      return;
    }
    last_document_pos_ = mark.pos;
    if (++documents_ == 2) error(mark, "more than one YAML document ('---'); a test_config file holds one");
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    check_anchor(mark, anchor);
    add(make(YamlNode::Kind::Null, mark));
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
    error(mark, "aliases ('*name') are not allowed in test_config files; write the value out");
    add(make(YamlNode::Kind::Null, mark));
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    check_anchor(mark, anchor);
    YamlNode n = make(YamlNode::Kind::Scalar, mark);
    n.value = value;
    n.quoted = tag == "!";  // yaml-cpp tags quoted and block scalars "!", plain ones "?"
    add(std::move(n));
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    check_anchor(mark, anchor);
    open_.push_back(make(YamlNode::Kind::Sequence, mark));
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    check_anchor(mark, anchor);
    open_.push_back(make(YamlNode::Kind::Map, mark));
  }
  void OnMapEnd() override { close(); }

 private:
  YamlNode make(YamlNode::Kind kind, const YAML::Mark& mark) const {
    YamlNode n;
    n.kind = kind;
    n.line = mark.line + 1;
    n.column = mark.column + 1;
    return n;
  }

  void add(YamlNode n) {
    if (!open_.empty()) {
      std::vector<YamlNode>& siblings = open_.back().children;
      // yaml-cpp marks an empty value ("key:") at the next token; point at its key instead.
      const bool map_value = open_.back().kind == YamlNode::Kind::Map && siblings.size() % 2 == 1;
      if (n.kind == YamlNode::Kind::Null && map_value) {
        n.line = siblings.back().line;
        n.column = siblings.back().column;
      }
      siblings.push_back(std::move(n));
    }
    else if (documents_ == 1) root_ = std::move(n);
  }

  void close() {
    YamlNode n = std::move(open_.back());
    open_.pop_back();
    add(std::move(n));
  }

  void check_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) error(mark, "anchors ('&name') are not allowed in test_config files; write the value out");
  }

  void error(const YAML::Mark& mark, const std::string& message) {
    diags_.push_back({{file_, mark.line + 1, mark.column + 1}, message});
  }

  char text_at(const YAML::Mark& mark) const {
    return mark.pos >= 0 && static_cast<size_t>(mark.pos) < text_.size() ? text_[static_cast<size_t>(mark.pos)] : '?';
  }

  std::string_view text_;
  const std::string& file_;
  std::vector<Diagnostic>& diags_;
  std::vector<YamlNode> open_;
  std::optional<YamlNode> root_;
  int documents_ = 0;
  int last_document_pos_ = -1;
  bool stuck_ = false;
};

}  // namespace

std::optional<YamlNode> parse_yaml(std::string_view text, const std::string& file,
                                   std::vector<Diagnostic>& diagnostics) {
  std::vector<Diagnostic> found = prescan_yaml(text, file);
  if (!found.empty()) {
    diagnostics.insert(diagnostics.end(), found.begin(), found.end());
    return std::nullopt;
  }
  std::istringstream stream{std::string(text)};
  TreeBuilder builder(text, file, diagnostics);
  try {
    YAML::Parser parser(stream);
    while (!builder.stuck() && parser.HandleNextDocument(builder)) {
    }
  } catch (const YAML::Exception& e) {
    diagnostics.push_back({{file, e.mark.line + 1, e.mark.column + 1}, "malformed YAML: " + e.msg});
    return std::nullopt;
  }
  if (!builder.root()) return YamlNode{};
  return std::move(builder.root());
}

}  // namespace meshtest::config
