#include "asm/lexer.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "base/error.hpp"
#include "isa/identifier.hpp"

namespace neuronsim::isa::asm_detail {

namespace {

bool digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

}  // namespace

void fail_at(const std::string& file, int line, int column, const std::string& reason) {
  std::string where = file + ":" + std::to_string(line) + ": " + reason;
  if (column > 0) where += " (column " + std::to_string(column) + ")";
  throw Error(where);
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

TokenStream::TokenStream(std::string_view source, std::string file, int first_line)
    : src_(source), file_(std::move(file)), line_(first_line) {}

const Token& TokenStream::peek(std::size_t ahead) {
  while (pos_ + ahead >= toks_.size() && !ended_)
    lex_more();
  return toks_[std::min(pos_ + ahead, toks_.size() - 1)];
}

const Token& TokenStream::next() {
  const Token& t = peek();
  peek(1);  // the end token stays current once reached
  if (pos_ + 1 < toks_.size()) ++pos_;
  return t;
}

void TokenStream::release() {
  toks_.erase(toks_.begin(), toks_.begin() + static_cast<std::ptrdiff_t>(pos_));
  pos_ = 0;
}

// Scans source until it has appended at least one token; at the end of the source, the
// closing newline and end tokens.
void TokenStream::lex_more() {
  const std::string_view src = src_;
  const std::string& file = file_;
  std::size_t& i = i_;
  const std::size_t before = toks_.size();
  auto push = [&](TokenKind kind, std::string text, std::size_t at) {
    toks_.push_back(Token{kind, std::move(text), line_, static_cast<int>(at - line_start_) + 1});
  };
  while (i < src.size() && toks_.size() == before) {
    const char c = src[i];
    if (c == '\n') {
      if (depth_ == 0) push(TokenKind::newline, "\n", i);
      ++i;
      ++line_;
      line_start_ = i;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '#') {
      while (i < src.size() && src[i] != '\n')
        ++i;
    } else if (is_identifier_start(c)) {
      std::size_t j = i;
      while (j < src.size() && is_identifier_char(src[j]))
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
        if (is_identifier_char(d) || d == '.') {
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
          fail_at(file, line_, static_cast<int>(i - line_start_) + 1, "unterminated string");
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
    } else if (std::string_view("[](){},:=.-@").find(c) != std::string_view::npos) {
      if (c == '[' || c == '(' || c == '{') ++depth_;
      if ((c == ']' || c == ')' || c == '}') && depth_ > 0) --depth_;
      push(TokenKind::punct, std::string(1, c), i);
      ++i;
    } else {
      std::string shown = std::isprint(static_cast<unsigned char>(c))
                              ? std::string(1, c)
                              : "\\x" + std::to_string(static_cast<unsigned char>(c));
      fail_at(file, line_, static_cast<int>(i - line_start_) + 1,
              "unexpected character '" + shown + "'");
    }
  }
  if (i >= src.size() && toks_.size() == before) {
    push(TokenKind::newline, "\n", i);
    push(TokenKind::end, "", i);
    ended_ = true;
  }
}

}  // namespace neuronsim::isa::asm_detail
