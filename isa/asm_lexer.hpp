#pragma once
// Tokens of the assembly language (docs/assembly.md). Newlines end statements, except
// inside brackets, braces and parentheses, so long lists may span lines; `#` starts a
// comment that runs to the end of the line.
#include <string>
#include <string_view>
#include <vector>

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

// Throws neuronsim::Error for characters that start no token and unterminated strings.
// The result always ends with a newline token and an end token.
std::vector<Token> lex(std::string_view source, const std::string& file);

// Quoted form of `text` that lex() reads back as one string token.
std::string quote_string(std::string_view text);
// True when `text` is an identifier: [A-Za-z_][A-Za-z0-9_]*.
bool is_identifier(std::string_view text);

}  // namespace neuronsim::isa::asm_detail
