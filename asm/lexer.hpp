#pragma once
// Tokens of the assembly language (docs/assembly.md). Newlines end statements, except
// inside brackets, braces and parentheses, so long lists may span lines; `#` starts a
// comment that runs to the end of the line.
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "isa/identifier.hpp"

namespace neuronsim::isa::asm_detail {

enum class TokenKind { ident, number, string, punct, newline, end };

struct Token {
  TokenKind kind = TokenKind::end;
  std::string text;  // identifier, number text, unescaped string, or the punctuation
  int line = 0;
  int column = 0;
  bool is(std::string_view punct) const { return kind == TokenKind::punct && text == punct; }
  bool is_ident(std::string_view word) const { return kind == TokenKind::ident && text == word; }
};

// "file:line: reason (column c)": the one form of every assembler error.
[[noreturn]] void fail_at(const std::string& file, int line, int column, const std::string& reason);

// The tokens of a source, lexed on demand: the assembler holds one statement's tokens at a
// time, never the whole file's (a 10 M-line kernel's would take gigabytes). Throws
// neuronsim::Error, when it reaches them, for characters that start no token and
// unterminated strings. The tokens always end with a newline token and an end token, and
// next() keeps returning the end token.
class TokenStream {
 public:
  // source must outlive this; its first line is line `first_line` in messages
  TokenStream(std::string_view source, std::string file, int first_line = 1);
  const Token& peek(std::size_t ahead = 0);
  const Token& next();
  // Forgets the tokens next() has returned: references to them become invalid. Tokens
  // still ahead, and references to them, are kept.
  void release();

 private:
  void lex_more();
  std::string_view src_;
  std::string file_;
  std::size_t i_ = 0, line_start_ = 0;
  int line_ = 1;
  int depth_ = 0;  // open brackets: newlines inside them do not end the statement
  bool ended_ = false;
  std::deque<Token> toks_;  // deque: appending keeps references to earlier tokens valid
  std::size_t pos_ = 0;     // index in toks_ of the token next() returns
};

// Quoted form of `text` that lex() reads back as one string token.
std::string quote_string(std::string_view text);

}  // namespace neuronsim::isa::asm_detail
