#pragma once
// A table of enum names, so that every enum <-> text mapping is written once.
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace neuronsim::detail {

template <typename Enum, std::size_t N>
struct NameTable {
  std::array<std::string_view, N> names;
  std::string_view name(Enum e) const {
    auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : std::string_view("?");
  }
  std::optional<Enum> parse(std::string_view s) const {
    for (std::size_t i = 0; i < N; ++i)
      if (names[i] == s) return static_cast<Enum>(i);
    return std::nullopt;
  }
};

// A table with exactly one name per enumerator: a name left out does not compile (an
// std::array initialiser would silently leave it empty).
template <typename Enum, std::size_t N, typename... Names>
constexpr NameTable<Enum, N> make_name_table(Names... names) {
  static_assert(sizeof...(Names) == N, "one name per enumerator");
  return NameTable<Enum, N>{{std::string_view(names)...}};
}

}  // namespace neuronsim::detail
