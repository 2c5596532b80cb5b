#include "isa/engine.hpp"

#include <array>

namespace neuronsim::isa {

namespace {
constexpr std::array<std::string_view, kEngineCount> kNames = {"tensor", "vector", "scalar",
                                                               "gpsimd", "sync"};
}

std::string_view engine_name(Engine e) {
  return kNames[static_cast<int>(e)];
}

std::optional<Engine> parse_engine(std::string_view name) {
  for (int i = 0; i < kEngineCount; ++i)
    if (kNames[i] == name) return static_cast<Engine>(i);
  return std::nullopt;
}

}  // namespace neuronsim::isa
