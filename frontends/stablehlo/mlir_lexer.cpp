// MLIR text tokenizer: identifiers with their sigils (% ^ @ # !), numbers,
// strings and punctuation, tracking line and column for every token.
#include "frontends/stablehlo/mlir_lexer.h"

namespace meshtest::frontends::stablehlo {

namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// Characters of a bare identifier after its first (MLIR: letter, digit, _ $ .).
bool is_bare_id_char(char c) { return is_letter(c) || is_digit(c) || c == '$' || c == '.'; }
// Characters of a suffix id (%name, ^bb, @sym, #alias, !type): bare-id chars and '-'.
bool is_suffix_id_char(char c) { return is_bare_id_char(c) || c == '-'; }
int hex_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

std::string token_kind_name(TokenKind kind) {
  // In TokenKind's order.
  static const char* const kNames[] = {
      "end of input", "identifier", "SSA value", "block label", "symbol", "'#' attribute", "'!' type",
      "integer",      "float",      "string",    "'('",         "')'",    "'['",           "']'",
      "'{'",          "'}'",        "'<'",       "'>'",         "','",    "':'",           "'='",
      "'->'",         "'?'",        "'*'",       "'+'",         "'-'",    "'{-#'",         "'#-}'"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(TokenKind::MetadataEnd) + 1);
  return kNames[static_cast<size_t>(kind)];
}

Lexer::Lexer(std::string_view text, std::string file_name) : text_(text), file_name_(std::move(file_name)) {}

std::string Lexer::where(Location loc) const {
  return file_name_ + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + ": ";
}

void Lexer::fail(Location loc, const std::string& message) const { throw FatalParseError(where(loc) + message); }

void Lexer::advance_char() {
  if (cursor_.offset >= text_.size()) return;
  if (text_[cursor_.offset] == '\n') {
    ++cursor_.line;
    cursor_.column = 1;
  } else {
    ++cursor_.column;
  }
  ++cursor_.offset;
}

void Lexer::skip_trivia() {
  while (true) {
    const char c = peek_char();
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      advance_char();
    } else if (c == '/' && peek_char(1) == '/') {
      while (peek_char() != '\n' && peek_char() != '\0') advance_char();
    } else {
      return;
    }
  }
}

Token Lexer::make(TokenKind kind, Cursor start) const {
  Token t;
  t.kind = kind;
  t.text = text_.substr(start.offset, cursor_.offset - start.offset);
  t.loc = {start.line, start.column};
  t.start = start;
  return t;
}

void Lexer::lex_suffix_id() {
  while (is_suffix_id_char(peek_char())) advance_char();
}

Token Lexer::lex_number(Cursor start) {
  if (peek_char() == '-') advance_char();
  if (peek_char() == '0' && peek_char(1) == 'x' && is_hex_digit(peek_char(2))) {
    advance_char();
    advance_char();
    while (is_hex_digit(peek_char())) advance_char();
    return make(TokenKind::Integer, start);
  }
  while (is_digit(peek_char())) advance_char();
  bool is_float = false;
  if (peek_char() == '.' && is_digit(peek_char(1))) {
    is_float = true;
    advance_char();
    while (is_digit(peek_char())) advance_char();
  } else if (peek_char() == '.' && !is_bare_id_char(peek_char(1))) {
    is_float = true;  // `1.` as MLIR allows
    advance_char();
  }
  if ((peek_char() == 'e' || peek_char() == 'E') &&
      (is_digit(peek_char(1)) || ((peek_char(1) == '+' || peek_char(1) == '-') && is_digit(peek_char(2))))) {
    is_float = true;
    advance_char();
    if (peek_char() == '+' || peek_char() == '-') advance_char();
    while (is_digit(peek_char())) advance_char();
  }
  return make(is_float ? TokenKind::Float : TokenKind::Integer, start);
}

Token Lexer::lex_string(Cursor start) {
  advance_char();  // opening quote
  while (true) {
    const char c = peek_char();
    if (c == '\0' && cursor_.offset >= text_.size()) fail({start.line, start.column}, "unterminated string");
    if (c == '\n') fail({start.line, start.column}, "unterminated string (newline before the closing '\"')");
    if (c == '"') {
      advance_char();
      return make(TokenKind::String, start);
    }
    if (c == '\\') advance_char();
    advance_char();
  }
}

Token Lexer::next() {
  skip_trivia();
  const Cursor start = cursor_;
  if (cursor_.offset >= text_.size()) return make(TokenKind::End, start);
  const char c = peek_char();
  const Location loc{start.line, start.column};

  if (is_letter(c)) {
    while (is_bare_id_char(peek_char())) advance_char();
    return make(TokenKind::BareId, start);
  }
  if (is_digit(c) || (c == '-' && is_digit(peek_char(1)))) return lex_number(start);
  if (c == '"') return lex_string(start);

  auto sigil = [&](TokenKind kind, const char* what) {
    advance_char();
    if (kind == TokenKind::AtId && peek_char() == '"') {
      lex_string(cursor_);
      return make(kind, start);
    }
    if (!is_suffix_id_char(peek_char())) fail(loc, std::string("expected a name after '") + c + "' (" + what + ")");
    lex_suffix_id();
    return make(kind, start);
  };
  switch (c) {
    case '%': {
      Token t = sigil(TokenKind::PercentId, "an SSA value");
      if (peek_char() == '#' && is_digit(peek_char(1))) {
        advance_char();
        while (is_digit(peek_char())) advance_char();
        t = make(TokenKind::PercentId, start);
      }
      return t;
    }
    case '^':
      return sigil(TokenKind::CaretId, "a block label");
    case '@':
      return sigil(TokenKind::AtId, "a symbol");
    case '!':
      return sigil(TokenKind::BangId, "a dialect type");
    case '#':
      if (peek_char(1) == '-' && peek_char(2) == '}') {
        advance_char();
        advance_char();
        advance_char();
        return make(TokenKind::MetadataEnd, start);
      }
      return sigil(TokenKind::HashId, "an attribute");
    default:
      break;
  }

  auto single = [&](TokenKind kind) {
    advance_char();
    return make(kind, start);
  };
  switch (c) {
    case '(':
      return single(TokenKind::LParen);
    case ')':
      return single(TokenKind::RParen);
    case '[':
      return single(TokenKind::LSquare);
    case ']':
      return single(TokenKind::RSquare);
    case '{':
      if (peek_char(1) == '-' && peek_char(2) == '#') {
        advance_char();
        advance_char();
        advance_char();
        return make(TokenKind::MetadataBegin, start);
      }
      return single(TokenKind::LBrace);
    case '}':
      return single(TokenKind::RBrace);
    case '<':
      return single(TokenKind::Less);
    case '>':
      return single(TokenKind::Greater);
    case ',':
      return single(TokenKind::Comma);
    case ':':
      return single(TokenKind::Colon);
    case '=':
      return single(TokenKind::Equal);
    case '?':
      return single(TokenKind::Question);
    case '*':
      return single(TokenKind::Star);
    case '+':
      return single(TokenKind::Plus);
    case '-':
      if (peek_char(1) == '>') {
        advance_char();
        advance_char();
        return make(TokenKind::Arrow, start);
      }
      return single(TokenKind::Minus);
    default:
      break;
  }
  if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f)
    fail(loc, "unexpected byte 0x" + std::string(1, "0123456789abcdef"[(c >> 4) & 0xf]) +
                  std::string(1, "0123456789abcdef"[c & 0xf]));
  fail(loc, std::string("unexpected character '") + c + "'");
}

std::string decoded_string(std::string_view quoted) {
  std::string out;
  if (quoted.size() < 2) return out;
  const std::string_view body = quoted.substr(1, quoted.size() - 2);
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out += c;
      continue;
    }
    const char e = body[++i];
    if (e == 'n') {
      out += '\n';
    } else if (e == 't') {
      out += '\t';
    } else if (is_hex_digit(e) && i + 1 < body.size() && is_hex_digit(body[i + 1])) {
      out += static_cast<char>(hex_value(e) * 16 + hex_value(body[i + 1]));
      ++i;
    } else {
      out += e;  // \" and \\ and anything else: the character itself
    }
  }
  return out;
}

}  // namespace meshtest::frontends::stablehlo
