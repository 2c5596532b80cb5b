#include "isa/asm_lexer.hpp"

#include <cctype>

#include "isa/error.hpp"

namespace neuronsim::isa::asm_detail {

namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

}  // namespace

void fail_at(const std::string& file, int line, int column, const std::string& reason) {
  std::string where = file + ":" + std::to_string(line) + ": " + reason;
  if (column > 0) where += " (column " + std::to_string(column) + ")";
  throw Error(where);
}

bool is_identifier(std::string_view text) {
  if (text.empty() || !ident_start(text[0])) return false;
  for (char c : text)
    if (!ident_char(c)) return false;
  return true;
}

std::string quote_string(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::vector<Token> lex(std::string_view src, const std::string& file) {
  std::vector<Token> out;
  int line = 1;
  std::size_t line_start = 0;
  int depth = 0;  // open brackets: newlines inside them do not end the statement
  std::size_t i = 0;
  auto push = [&](TokenKind kind, std::string text, std::size_t at) {
    out.push_back(Token{kind, std::move(text), line, static_cast<int>(at - line_start) + 1});
  };
  while (i < src.size()) {
    const char c = src[i];
    if (c == '\n') {
      if (depth == 0) push(TokenKind::newline, "\n", i);
      ++i;
      ++line;
      line_start = i;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '#') {
      while (i < src.size() && src[i] != '\n')
        ++i;
    } else if (ident_start(c)) {
      std::size_t j = i;
      while (j < src.size() && ident_char(src[j]))
        ++j;
      push(TokenKind::ident, std::string(src.substr(i, j - i)), i);
      i = j;
    } else if (digit(c)) {
      // A number is scanned generously ([0-9A-Za-z_.] plus an exponent sign) and checked
      // when it is read, so that "12x" is one malformed number, not "12" then "x".
      const bool hex = c == '0' && i + 1 < src.size() && (src[i + 1] == 'x' || src[i + 1] == 'X');
      std::size_t j = i;
      while (j < src.size()) {
        const char d = src[j];
        if (ident_char(d) || d == '.') {
          ++j;
        } else if ((d == '+' || d == '-') && j > i &&
                   (hex ? (src[j - 1] == 'p' || src[j - 1] == 'P')
                        : (src[j - 1] == 'e' || src[j - 1] == 'E'))) {
          ++j;
        } else {
          break;
        }
      }
      push(TokenKind::number, std::string(src.substr(i, j - i)), i);
      i = j;
    } else if (c == '"') {
      std::string text;
      std::size_t j = i + 1;
      for (;;) {
        if (j >= src.size() || src[j] == '\n')
          fail_at(file, line, static_cast<int>(i - line_start) + 1, "unterminated string");
        if (src[j] == '"') break;
        if (src[j] == '\\' && j + 1 < src.size()) {
          ++j;
          text += src[j] == 'n' ? '\n' : src[j];
        } else {
          text += src[j];
        }
        ++j;
      }
      push(TokenKind::string, std::move(text), i);
      i = j + 1;
    } else if ((c == '>' || c == '+') && i + 1 < src.size() && src[i + 1] == '=') {
      push(TokenKind::punct, std::string(src.substr(i, 2)), i);
      i += 2;
    } else if (std::string_view("[](){},:=.-").find(c) != std::string_view::npos) {
      if (c == '[' || c == '(' || c == '{') ++depth;
      if ((c == ']' || c == ')' || c == '}') && depth > 0) --depth;
      push(TokenKind::punct, std::string(1, c), i);
      ++i;
    } else {
      std::string shown = std::isprint(static_cast<unsigned char>(c))
                              ? std::string(1, c)
                              : "\\x" + std::to_string(static_cast<unsigned char>(c));
      fail_at(file, line, static_cast<int>(i - line_start) + 1,
              "unexpected character '" + shown + "'");
    }
  }
  push(TokenKind::newline, "\n", i);
  push(TokenKind::end, "", i);
  return out;
}

}  // namespace neuronsim::isa::asm_detail
