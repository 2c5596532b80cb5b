#pragma once
// Names in a kernel (tensors, allocations, constants, semaphores, queues) are identifiers
// as in C: a letter or '_', then letters, digits and '_' (docs/assembly.md, "Lexical
// rules"), so that every kernel prints as assembly and reads back.
#include <cctype>
#include <string_view>

namespace neuronsim::isa {

inline bool is_identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
inline bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
inline bool is_identifier(std::string_view text) {
  if (text.empty() || !is_identifier_start(text[0])) return false;
  for (char c : text)
    if (!is_identifier_char(c)) return false;
  return true;
}

}  // namespace neuronsim::isa
