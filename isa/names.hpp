#pragma once
// A table of enum names, so that every enum <-> text mapping is written once.
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace neuronsim::isa::detail {

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

}  // namespace neuronsim::isa::detail
