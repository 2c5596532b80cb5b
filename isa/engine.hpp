#pragma once
// The compute engines of a NeuronCore. Each runs its own in-order instruction stream
// (reference section 3); DMA transfers are issued from these streams.
#include <cstdint>
#include <optional>
#include <string_view>

namespace neuronsim::isa {

enum class Engine : std::uint8_t { tensor, vector, scalar, gpsimd, sync };
inline constexpr int kEngineCount = 5;

std::string_view engine_name(Engine e);  // "tensor", "vector", ...
std::optional<Engine> parse_engine(std::string_view name);

}  // namespace neuronsim::isa
