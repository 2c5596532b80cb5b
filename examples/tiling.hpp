#pragma once
// Shared checks of the examples' shapes.
#include <cstdint>
#include <string>

#include "base/error.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::examples {

inline constexpr std::uint32_t kPartitions = 128;  // reference section 1: 128 lanes

inline std::uint32_t or_default(std::uint32_t v, std::uint32_t def) {
  return v ? v : def;
}

// The bf16-only examples refuse another dtype rather than ignore it.
inline void require_bf16(const std::string& dtype, const std::string& example) {
  if (!dtype.empty() && dtype != "bf16")
    throw Error(example + ": dtype '" + dtype + "' is not supported (bf16 only)");
}

// Number of 128-row tiles of `n`; throws unless n is a positive multiple of 128.
inline std::uint32_t tiles_of(std::uint32_t n, const std::string& what) {
  if (n == 0 || n % kPartitions != 0)
    throw Error(what + " = " + std::to_string(n) + " must be a positive multiple of 128");
  return n / kPartitions;
}

// The kernel's name for `nbuf` buffers per stage: NAME (1), NAME_db (2), NAME_bN (more).
inline std::string buffered_name(const std::string& name, std::uint32_t nbuf) {
  if (nbuf == 1) return name;
  return nbuf == 2 ? name + "_db" : name + "_b" + std::to_string(nbuf);
}

// The target's DMA engines, which the examples' queues spread over (needs `limits`, as
// matmul does: a target with fewer engines gets a kernel that fits it).
inline std::uint8_t dma_engines(const params::TargetLimits& limits, const std::string& example) {
  if (limits.dma_engines == 0 || limits.dma_engines > 255)
    throw Error(example + ": needs the target's limits (DMA engines: " +
                std::to_string(limits.dma_engines) + ")");
  return static_cast<std::uint8_t>(limits.dma_engines);
}

}  // namespace neuronsim::examples
