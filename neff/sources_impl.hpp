#pragma once
// The source table of a NEFF (docs/neff.md, "Source locations", NEFF version 1.1): the
// files of the program that generated the kernel, each one's text in its own entry, and
// sg00/locations.bin with every instruction's (file, line). Written only for kernels that
// have sources, so every other kernel's NEFF is byte-identical to a version 1.0 one.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/kernel.hpp"

namespace neuronsim::neff::detail {

inline constexpr const char* kLocationsPath = "sg00/locations.bin";
inline constexpr std::uint16_t kLocationsVersion = 1;

std::string source_file_name(std::size_t index);  // "source_000002.txt"

// Every instruction's location, engine by engine (the layout in docs/neff.md).
std::vector<std::uint8_t> encode_locations(const isa::Kernel& k);
// Decodes into k's streams (already decoded, with their counts); checks the magic,
// version, counts and that each location names one of k.sources. Errors name `where`.
void decode_locations(isa::Kernel& k, const std::vector<std::uint8_t>& bytes,
                      const std::string& where);

}  // namespace neuronsim::neff::detail
