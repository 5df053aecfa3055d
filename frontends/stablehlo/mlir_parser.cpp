// The reader's statements: module, func.func, regions and blocks, ops in
// generic form (pretty forms are in mlir_pretty_ops.cpp), SSA scoping, alias
// definitions, and the public entry points of mlir_parser.h.
#include "frontends/stablehlo/mlir_parser.h"

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "frontends/stablehlo/mlir_generic_module.h"
#include "frontends/stablehlo/mlir_parser_core.h"

namespace meshtest::frontends::stablehlo {

namespace {

constexpr int kMaxDepth = 200;                // nesting of brackets, regions and types
constexpr int64_t kMaxResultGroup = 1 << 16;  // `%0:N`

// The text of `t` for messages, shortened.
std::string quote(std::string_view text) {
  if (text.size() > 40) return "'" + std::string(text.substr(0, 37)) + "...'";
  return "'" + std::string(text) + "'";
}

std::string location_text(Location loc) { return std::to_string(loc.line) + ":" + std::to_string(loc.column); }

}  // namespace

// ---- token helpers ----

MlirParser::MlirParser(std::string_view text, std::string file_name, Cursor start)
    : lexer_(text, std::move(file_name)) {
  lexer_.reset(start);
  advance();
}

MlirParser::DepthGuard::DepthGuard(MlirParser& p) : parser_(p) {
  if (++parser_.depth_ > kMaxDepth) {
    --parser_.depth_;
    parser_.fail_fatal(parser_.tok_.loc, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  }
}

bool MlirParser::consume_if(TokenKind kind) {
  if (tok_.kind != kind) return false;
  advance();
  return true;
}

bool MlirParser::consume_word_if(std::string_view word) {
  if (!is_word(word)) return false;
  advance();
  return true;
}

std::string MlirParser::describe_current() const {
  if (tok_.kind == TokenKind::End) return "end of input";
  return quote(tok_.text);
}

Token MlirParser::expect(TokenKind kind, std::string_view context) {
  if (tok_.kind != kind) {
    std::string message = "expected " + token_kind_name(kind);
    if (!context.empty()) message += " " + std::string(context);
    fail(message + ", found " + describe_current());
  }
  Token t = tok_;
  advance();
  return t;
}

void MlirParser::expect_word(std::string_view word, std::string_view context) {
  if (!is_word(word))
    fail("expected '" + std::string(word) + "' " + std::string(context) + ", found " + describe_current());
  advance();
}

void MlirParser::restore(const Token& t) {
  lexer_.reset(t.start);
  advance();
}

std::string_view MlirParser::text_since(const Cursor& start) const {
  std::string_view text = lexer_.text().substr(start.offset, tok_.start.offset - start.offset);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  return text;
}

std::string_view MlirParser::skip_balanced() {
  const Cursor start = tok_.start;
  const Location open_loc = tok_.loc;
  std::vector<TokenKind> closers;
  do {
    switch (tok_.kind) {
      case TokenKind::LParen:
        closers.push_back(TokenKind::RParen);
        break;
      case TokenKind::LSquare:
        closers.push_back(TokenKind::RSquare);
        break;
      case TokenKind::LBrace:
        closers.push_back(TokenKind::RBrace);
        break;
      case TokenKind::Less:
        closers.push_back(TokenKind::Greater);
        break;
      case TokenKind::RParen:
      case TokenKind::RSquare:
      case TokenKind::RBrace:
      case TokenKind::Greater:
        if (closers.empty() || closers.back() != tok_.kind)
          fail_fatal(tok_.loc, "unbalanced " + quote(tok_.text) + " in the group opened at " + location_text(open_loc));
        closers.pop_back();
        break;
      case TokenKind::End:
        fail_fatal(open_loc, "unterminated group: no closing bracket before the end of input");
      default:
        if (closers.empty()) fail("expected an opening bracket, found " + describe_current());
        break;
    }
    advance();
  } while (!closers.empty());
  return text_since(start);
}

void MlirParser::skip_location() {
  if (!is_word("loc")) return;
  advance();
  if (!is(TokenKind::LParen)) fail("expected '(' after 'loc', found " + describe_current());
  skip_balanced();
}

// ---- SSA values ----

void MlirParser::define_value(const std::string& name, int count, Location loc) {
  for (const auto& scope : scopes_)
    if (scope.count(name)) fail_at(loc, "redefinition of SSA value '" + name + "'");
  scopes_.back()[name] = count;
}

std::string MlirParser::parse_value_use() {
  if (!is(TokenKind::PercentId)) fail("expected an SSA value, found " + describe_current());
  const std::string_view text = tok_.text;
  const size_t hash = text.find('#');
  const std::string base(text.substr(0, hash));
  int count = -1;
  for (auto it = scopes_.rbegin(); it != scopes_.rend() && count < 0; ++it) {
    const auto found = it->find(base);
    if (found != it->end()) count = found->second;
  }
  if (count < 0) fail("use of undefined value '" + base + "'");
  int64_t index = 0;
  if (hash != std::string_view::npos) {
    const std::string digits(text.substr(hash + 1));
    if (digits.size() > 9) fail("result number out of range in " + quote(text));
    index = std::stoll(digits);
    if (index >= count)
      fail("'" + base + "' has " + std::to_string(count) + " result(s), no #" + std::to_string(index));
  }
  advance();
  return count == 1 ? base : base + "#" + std::to_string(index);
}

std::vector<std::string> MlirParser::parse_value_uses() {
  std::vector<std::string> uses;
  if (!is(TokenKind::PercentId)) return uses;
  uses.push_back(parse_value_use());
  while (consume_if(TokenKind::Comma)) uses.push_back(parse_value_use());
  return uses;
}

// ---- regions ----

BlockArgument MlirParser::parse_block_argument(bool define) {
  const Token name = expect(TokenKind::PercentId, "(a block argument)");
  if (name.text.find('#') != std::string_view::npos) fail_at(name.loc, "a block argument cannot have a result number");
  expect(TokenKind::Colon, "after a block argument name");
  BlockArgument arg{std::string(name.text), parse_type()};
  skip_location();
  if (define) define_value(arg.name, 1, name.loc);
  return arg;
}

Block MlirParser::parse_block_body() {
  Block block;
  while (!is(TokenKind::RBrace) && !is(TokenKind::CaretId) && !is(TokenKind::End)) block.ops.push_back(parse_op());
  return block;
}

Region MlirParser::parse_region(const std::vector<BlockArgument>& entry_args) {
  DepthGuard guard(*this);
  const Location open = tok_.loc;
  expect(TokenKind::LBrace, "to start a region");
  scopes_.emplace_back();
  Region region;
  if (!is(TokenKind::RBrace) || !entry_args.empty()) {
    bool first = true;
    do {
      Block block;
      if (is(TokenKind::CaretId)) {
        if (first && !entry_args.empty()) fail("this region's entry block arguments are declared before it");
        block.label = std::string(tok_.text);
        advance();
        if (consume_if(TokenKind::LParen) && !consume_if(TokenKind::RParen)) {
          do {
            block.arguments.push_back(parse_block_argument());
          } while (consume_if(TokenKind::Comma));
          expect(TokenKind::RParen, "to close the block arguments");
        }
        expect(TokenKind::Colon, "after a block label");
      } else if (!first) {
        fail("expected a block label, found " + describe_current());
      } else {
        for (const BlockArgument& a : entry_args) {
          define_value(a.name, 1, open);
          block.arguments.push_back(a);
        }
      }
      Block body = parse_block_body();
      block.ops = std::move(body.ops);
      region.blocks.push_back(std::move(block));
      first = false;
    } while (is(TokenKind::CaretId));
  }
  if (is(TokenKind::End)) fail_at(open, "unterminated region: the '{' here is never closed");
  expect(TokenKind::RBrace, "to close the region");
  scopes_.pop_back();
  return region;
}

// ---- ops ----

void MlirParser::parse_generic_op_body(Op& op) {
  expect(TokenKind::LParen, "to start the operand list of " + quote(op.name));
  op.operands = parse_value_uses();
  expect(TokenKind::RParen, "to close the operand list of " + quote(op.name));
  if (is(TokenKind::LSquare)) fail("block successors are not supported (op " + quote(op.name) + ")");
  if (consume_if(TokenKind::Less)) {
    if (!is(TokenKind::LBrace)) fail("expected '{' to start the properties of " + quote(op.name));
    op.attributes = parse_attr_dict();
    expect(TokenKind::Greater, "to close the properties of " + quote(op.name));
  }
  if (consume_if(TokenKind::LParen)) {
    do {
      op.regions.push_back(parse_region());
    } while (consume_if(TokenKind::Comma));
    expect(TokenKind::RParen, "to close the regions of " + quote(op.name));
  }
  parse_optional_attr_dict(op.attributes);
  expect(TokenKind::Colon, "before the type of " + quote(op.name));
  const Location type_loc = tok_.loc;
  Type type = parse_type();
  if (type.kind != Type::Kind::Function) fail_at(type_loc, "expected a function type for " + quote(op.name));
  op.operand_types = std::move(type.elements);
  op.result_types = std::move(type.results);
  if (op.operand_types.size() != op.operands.size())
    fail_at(type_loc, quote(op.name) + " has " + std::to_string(op.operands.size()) +
                          " operand(s) but its type lists " + std::to_string(op.operand_types.size()));
}

Op MlirParser::parse_op() {
  DepthGuard guard(*this);
  Op op;
  op.loc = tok_.loc;
  struct Group {
    std::string name;
    int count;
    Location loc;
  };
  std::vector<Group> groups;
  if (is(TokenKind::PercentId)) {
    do {
      const Token name = expect(TokenKind::PercentId, "(a result name)");
      if (name.text.find('#') != std::string_view::npos) fail_at(name.loc, "a result name cannot have a result number");
      int64_t count = 1;
      if (consume_if(TokenKind::Colon)) {
        const Location loc = tok_.loc;
        count = parse_integer("(the number of results)");
        if (count < 1 || count > kMaxResultGroup) fail_at(loc, "bad result count " + std::to_string(count));
      }
      groups.push_back({std::string(name.text), static_cast<int>(count), name.loc});
      for (int64_t i = 0; i < count; ++i)
        op.results.push_back(count == 1 ? std::string(name.text) : std::string(name.text) + "#" + std::to_string(i));
    } while (consume_if(TokenKind::Comma));
    expect(TokenKind::Equal, "after the results of an op");
  }
  if (is(TokenKind::String)) {
    op.name = decoded_string(tok_.text);
    advance();
    parse_generic_op_body(op);
  } else if (is(TokenKind::BareId)) {
    op.name = std::string(tok_.text);
    if (op.name.find('.') == std::string::npos) op.name = "func." + op.name;
    advance();
    parse_pretty_op(op);
  } else {
    fail("expected an op, found " + describe_current());
  }
  skip_location();
  if (op.result_types.size() != op.results.size())
    fail_at(op.loc, quote(op.name) + " defines " + std::to_string(op.results.size()) +
                        " result(s) but its type gives " + std::to_string(op.result_types.size()));
  sort_attrs(op.attributes);
  for (const Group& g : groups) define_value(g.name, g.count, g.loc);
  return op;
}

// ---- functions ----

Function MlirParser::parse_function() {
  Function fn;
  fn.loc = tok_.loc;
  advance();  // func.func
  if (is_word("public") || is_word("private") || is_word("nested")) {
    fn.visibility = std::string(tok_.text);
    advance();
  }
  const Token name = expect(TokenKind::AtId, "(the function name)");
  fn.name = name.text.size() > 1 && name.text[1] == '"' ? decoded_string(name.text.substr(1))
                                                        : std::string(name.text.substr(1));
  // Functions are isolated from above: a fresh SSA scope stack.
  std::vector<std::unordered_map<std::string, int>> outer_scopes;
  outer_scopes.swap(scopes_);
  scopes_.emplace_back();
  std::vector<BlockArgument> entry_args;
  expect(TokenKind::LParen, "to start the arguments of @" + fn.name);
  if (!consume_if(TokenKind::RParen)) {
    do {
      FunctionArgument arg;
      if (is(TokenKind::PercentId)) {
        const Token n = tok_;
        advance();
        expect(TokenKind::Colon, "after an argument name");
        arg.name = std::string(n.text);
      }
      arg.type = parse_type();
      if (is(TokenKind::LBrace)) arg.attributes = parse_attr_dict();
      skip_location();
      if (!arg.name.empty()) entry_args.push_back({arg.name, arg.type});
      fn.arguments.push_back(std::move(arg));
    } while (consume_if(TokenKind::Comma));
    expect(TokenKind::RParen, "to close the arguments of @" + fn.name);
  }
  if (consume_if(TokenKind::Arrow)) {
    const bool parenthesised = consume_if(TokenKind::LParen);
    if (!parenthesised || !is(TokenKind::RParen)) {
      do {
        FunctionResult result;
        result.type = parse_type();
        if (parenthesised && is(TokenKind::LBrace)) result.attributes = parse_attr_dict();
        fn.results.push_back(std::move(result));
      } while (parenthesised && consume_if(TokenKind::Comma));
    }
    if (parenthesised) expect(TokenKind::RParen, "to close the results of @" + fn.name);
  }
  if (consume_word_if("attributes")) fn.attributes = parse_attr_dict();
  if (is(TokenKind::LBrace)) {
    if (entry_args.size() != fn.arguments.size()) fail("a function with a body needs a name for every argument");
    fn.body = parse_region(entry_args);
  }
  skip_location();
  scopes_.swap(outer_scopes);
  return fn;
}

// ---- module ----

void MlirParser::parse_alias_definition(Module& module) {
  const Token name = tok_;
  const bool is_type = name.kind == TokenKind::BangId;
  const std::string key(name.text.substr(1));
  advance();
  expect(TokenKind::Equal, "in an alias definition");
  const Cursor start = tok_.start;
  if (is_type) {
    type_aliases_[key] = parse_type();
  } else if (is_word("loc")) {
    skip_location();
  } else {
    attribute_aliases_[key] = parse_attribute();
  }
  module.aliases[key] = std::string(text_since(start));
}

void MlirParser::parse_module_body(Module& module, TokenKind terminator) {
  while (!is(terminator)) {
    if (is(TokenKind::End)) fail("unterminated module: expected '}' before the end of input");
    if (is_word("func.func")) {
      module.functions.push_back(parse_function());
    } else if (is_word("module") || is_word("builtin.module")) {
      fail("nested modules are not supported");
    } else {
      module.other_ops.push_back(parse_op());
    }
  }
}

void MlirParser::parse_file_scope_item(Module& module) {
  if (!is(TokenKind::MetadataBegin)) {
    parse_alias_definition(module);
    return;
  }
  // `{-# dialect_resources: {...} #-}`: skipped (dense_resource blobs stay unresolved).
  const Location open = tok_.loc;
  while (!is(TokenKind::MetadataEnd)) {
    if (is(TokenKind::End)) fail_at(open, "unterminated '{-#' metadata block");
    advance();
  }
  advance();
}

Module MlirParser::parse_module() {
  Module module;
  scopes_.emplace_back();
  bool explicit_module = false;
  bool has_content = false;
  while (!is(TokenKind::End)) {
    if (is_word("module") || is_word("builtin.module")) {
      if (explicit_module || has_content)
        fail("a second top-level module (split the file at '// -----' lines with parse_mlir_split)");
      explicit_module = true;
      module.loc = tok_.loc;
      advance();
      if (is(TokenKind::AtId)) {
        module.name = std::string(tok_.text.substr(1));
        advance();
      }
      if (consume_word_if("attributes")) module.attributes = parse_attr_dict();
      const Location open = tok_.loc;
      expect(TokenKind::LBrace, "to start the module body");
      parse_module_body(module, TokenKind::RBrace);
      if (is(TokenKind::End)) fail_at(open, "unterminated module: the '{' here is never closed");
      advance();
      skip_location();
    } else if (is(TokenKind::HashId) || is(TokenKind::BangId) || is(TokenKind::MetadataBegin)) {
      parse_file_scope_item(module);
    } else {
      if (explicit_module) fail("unexpected " + describe_current() + " after the module");
      has_content = true;
      if (module.loc.line == 0) module.loc = tok_.loc;
      if (is_word("func.func")) {
        module.functions.push_back(parse_function());
      } else {
        module.other_ops.push_back(parse_op());
      }
    }
  }
  lift_generic_module(module, lexer_.file_name());
  return module;
}

// ---- public API ----

Module parse_mlir(std::string_view text, const std::string& file_name) {
  MlirParser parser(text, file_name);
  return parser.parse_module();
}

std::vector<Module> parse_mlir_split(std::string_view text, const std::string& file_name) {
  std::vector<Module> modules;
  Cursor chunk_start;
  size_t line_start = 0;
  int line = 1;
  auto flush = [&](size_t end) {
    MlirParser parser(text.substr(0, end), file_name, chunk_start);
    modules.push_back(parser.parse_module());
  };
  while (line_start <= text.size()) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view content = text.substr(line_start, line_end - line_start);
    while (!content.empty() && (content.back() == '\r' || content.back() == ' ')) content.remove_suffix(1);
    if (content == "// -----") {
      flush(line_start);
      chunk_start = {line_end + (line_end < text.size() ? 1 : 0), line + 1, 1};
    }
    if (line_end >= text.size()) break;
    line_start = line_end + 1;
    ++line;
  }
  flush(text.size());
  return modules;
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path + ": cannot open file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

Module parse_mlir_file(const std::string& path) { return parse_mlir(read_file(path), path); }

std::vector<Module> parse_mlir_file_split(const std::string& path) { return parse_mlir_split(read_file(path), path); }

}  // namespace meshtest::frontends::stablehlo
