#pragma once
// The binary instruction files of a NEFF (sg00/<engine>.bin, docs/neff.md "Instruction
// files"): a 12-byte stream header, then one little-endian record per instruction with a
// fixed layout per opcode. Both directions check the same things (enum ranges, dims
// counts, indices into the kernel's tables), so a file this writes is always readable.
#include <cstdint>
#include <string>
#include <vector>

#include "isa/kernel.hpp"

namespace neuronsim::neff::detail {

// 2: dma_copy's record gained bool transpose, AP? src_index and AP? dst_index (version 1
// files have none of them). 3: dma_copy's record gained bool oob_skip. 4: and bool
// prebuilt_descriptors.
inline constexpr std::uint16_t kEncodingVersion = 4;
inline constexpr std::size_t kStreamHeaderBytes = 12;
inline constexpr std::size_t kRecordHeaderBytes = 12;
inline constexpr std::size_t kAccessPatternBytes = 64;
// No NEFF may hold more instructions than this (all engines together). A kernel holds its
// streams encoded (isa/instruction_stream.hpp), 10-100 bytes per instruction, and a
// record takes at least 12 bytes of the file, so this bounds what a hostile file can
// make us allocate (~1.6 GiB at 100 bytes) while taking a 10 M-instruction kernel.
inline constexpr std::uint64_t kMaxInstructions = std::uint64_t{1} << 24;
// The one check of that limit, for the writer (neff::write) and the reader (def.json's
// counts) alike, so the writer never writes a file the reader refuses: why `total`
// instructions of all engines together are too many, or "" when they are not.
std::string instruction_total_problem(std::uint64_t total);

// Encodes one engine's stream. `k` supplies the tables indices refer to. Throws
// neuronsim::Error naming the engine, the instruction and the field for anything the
// reader would refuse.
std::vector<std::uint8_t> encode_stream(const isa::Kernel& k, isa::Engine engine);

// Decodes a stream of exactly `count` instructions, checking every field against the
// tables already in `k`. `where` prefixes every error ("k.neff: sg00/vector.bin").
isa::InstructionStream decode_stream(const isa::Kernel& k, isa::Engine engine,
                                     const std::vector<std::uint8_t>& bytes, std::uint64_t count,
                                     const std::string& where);

}  // namespace neuronsim::neff::detail
