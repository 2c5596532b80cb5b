#pragma once
// neuronsim's deterministic random numbers (docs/numerics.md "dropout"): a counter-based
// generator, so a value depends only on its key and position, never on the order the
// engines ran in, and the same kernel gives the same bits on every run and host. The
// hardware's generator is not published; this one is SplitMix64's finaliser (Steele, Lea
// and Flood, "Fast splittable pseudorandom number generators", 2014) applied twice.
#include <cstdint>

namespace neuronsim::isa::sem {

constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// A uniform number in [0, 1) with 24 random bits (exact in fp32) for element `index` of
// partition `partition` (both counted within the instruction's own operand) under `seed`.
constexpr float uniform01(std::uint32_t seed, std::uint32_t partition, std::uint64_t index) {
  const std::uint64_t row = splitmix64_mix((std::uint64_t{seed} << 32) | partition);
  const std::uint64_t z = splitmix64_mix(row + 0x9e3779b97f4a7c15ull * (index + 1));
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
}

}  // namespace neuronsim::isa::sem
