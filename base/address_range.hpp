#pragma once
// Address ranges checked without overflow: a range [address, address + bytes) is compared
// with inclusive bounds, never by adding to or subtracting from an address that a host
// chose (a descriptor's tensor address may be anywhere in 64 bits).
#include <cstdint>

namespace neuronsim {

// [address, address + bytes) lies inside [first, last] (inclusive, as tlm_dmi's bounds);
// an empty range lies inside if its address does.
inline bool range_within(std::uint64_t address, std::uint64_t bytes, std::uint64_t first,
                         std::uint64_t last) {
  if (address < first || address > last) return false;
  return bytes == 0 || bytes - 1 <= last - address;
}

// [address, address + bytes) fits below `size` (a memory of `size` bytes from 0).
inline bool range_fits(std::uint64_t address, std::uint64_t bytes, std::uint64_t size) {
  return address <= size && bytes <= size - address;
}

// The last byte of a non-empty range, or false when it would pass 2^64 - 1.
inline bool range_last(std::uint64_t address, std::uint64_t bytes, std::uint64_t& last) {
  if (bytes == 0 || bytes - 1 > UINT64_MAX - address) return false;
  last = address + (bytes - 1);
  return true;
}

// Two inclusive ranges share a byte.
inline bool ranges_overlap(std::uint64_t first_a, std::uint64_t last_a, std::uint64_t first_b,
                           std::uint64_t last_b) {
  return first_a <= last_b && first_b <= last_a;
}

}  // namespace neuronsim
