// Tokens of MLIR's textual form (the subset StableHLO programs use), with the
// 1-based line and column each starts at. The parser also scans some
// constructs character by character (tensor shapes `4x?xf32`, opaque
// `<...>` bodies); it does so through `cursor()` / `reset()`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/error.h"
#include "frontends/stablehlo/mlir_ast.h"

namespace meshtest::frontends::stablehlo {

// An error no other reading of the text avoids (a bad character, an
// unterminated string or bracket, nesting too deep): the parser never
// retries another form after one.
class FatalParseError : public ParseError {
 public:
  using ParseError::ParseError;
};

enum class TokenKind {
  End,
  BareId,     // stablehlo.add, f32, tensor, dense, x
  PercentId,  // %0, %arg0, %0#1 (a `#N` result number is part of the token)
  CaretId,    // ^bb0
  AtId,       // @main, @"quoted name" (text keeps the quotes when quoted)
  HashId,     // #loc3, #stablehlo, #stablehlo.conv
  BangId,     // !stablehlo.token, !quant.uniform
  Integer,    // 12, -3, 0x7FC00000
  Float,      // 1.5, -2.0e+00
  String,     // "..." (text is the raw spelling with quotes; see decoded_string)
  LParen,
  RParen,
  LSquare,
  RSquare,
  LBrace,
  RBrace,
  Less,
  Greater,
  Comma,
  Colon,
  Equal,
  Arrow,          // ->
  Question,       // ?
  Star,           // *
  Plus,           // +
  Minus,          // - not followed by a digit
  MetadataBegin,  // {-#
  MetadataEnd,    // #-}
};

// Where the lexer stands in the text.
struct Cursor {
  size_t offset = 0;
  int line = 1;
  int column = 1;
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string_view text;
  Location loc;
  Cursor start;  // the cursor at the token's first character
};

// A printable name for a token kind, for messages ("'('", "integer").
std::string token_kind_name(TokenKind kind);

class Lexer {
 public:
  Lexer(std::string_view text, std::string file_name);

  // The next token (skipping whitespace and `//` comments).
  Token next();
  Cursor cursor() const { return cursor_; }
  void reset(Cursor c) { cursor_ = c; }
  std::string_view text() const { return text_; }
  const std::string& file_name() const { return file_name_; }

  // Raw character access for the parser's character-level scans.
  char peek_char(size_t ahead = 0) const {
    return cursor_.offset + ahead < text_.size() ? text_[cursor_.offset + ahead] : '\0';
  }
  void advance_char();

  // "file:line:col: " for messages.
  std::string where(Location loc) const;
  // Throws FatalParseError "file:line:col: message" (the lexer's own errors).
  [[noreturn]] void fail(Location loc, const std::string& message) const;

 private:
  void skip_trivia();
  Token make(TokenKind kind, Cursor start) const;
  void lex_suffix_id();
  Token lex_number(Cursor start);
  Token lex_string(Cursor start);

  std::string_view text_;
  std::string file_name_;
  Cursor cursor_;
};

// The decoded value of a String token's text (escapes \" \\ \n \t \XX).
std::string decoded_string(std::string_view quoted);

}  // namespace meshtest::frontends::stablehlo
