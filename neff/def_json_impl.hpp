#pragma once
// def.json, the table of contents of a NEFF payload (docs/neff.md "def.json"): the
// kernel's name and target, its tensors, allocations, semaphores and DMA queues, and
// per engine the instruction file and count. Both directions check the same rules.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/kernel.hpp"

namespace neuronsim::neff::detail {

inline constexpr const char* kFormatName = "neuronsim-neff";
inline constexpr const char* kDefJsonPath = "def.json";
inline constexpr const char* kCoreDir = "sg00/";  // one folder per core (reference 6)
// def.json holds metadata only (tensor bytes live in their own files), so 16 MiB is far
// more than any kernel needs and bounds the parser's memory for a hostile file.
inline constexpr std::uint64_t kMaxDefJsonBytes = 16u << 20;
inline constexpr std::size_t kMaxTensorDims = 8;
inline constexpr std::size_t kMaxAllocationDims = 8;
// Largest tensor or allocation we accept, so that byte counts never overflow.
inline constexpr std::uint64_t kMaxBufferBytes = std::uint64_t{1} << 48;

std::string engine_file_name(isa::Engine e);         // "sg00/vector.bin"
std::string constant_file_name(std::size_t tensor);  // "sg00/const_000003.bin"

// Checks the kernel's tables and returns def.json (pretty-printed, deterministic).
std::string make_def_json(const isa::Kernel& k);

struct Definition {
  // Source files' names and paths are in kernel.sources (texts empty until read).
  isa::Kernel kernel;  // name, target and tables; streams empty, constants' data empty
  std::array<std::uint64_t, isa::kEngineCount> instruction_counts{};
  std::vector<std::uint64_t> source_bytes;  // each source text's size, as def.json says
};
// Parses and checks def.json. `where` prefixes every error ("k.neff: def.json").
Definition parse_def_json(const std::vector<std::uint8_t>& text, const std::string& where);

}  // namespace neuronsim::neff::detail
