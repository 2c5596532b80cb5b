#pragma once
// The byte-level pieces of NTFF (docs/ntff.md) shared by its writer and reader: magic,
// tags, flag bits, LEB128 varints, zigzag deltas, the FNV-1a checksum and the delta state
// both sides keep.
#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "base/little_endian.hpp"
#include "isa/engine.hpp"

namespace neuronsim::traces::ntff {

// Eight bytes, PNG-style: a non-ASCII first byte, CR LF and ^Z catch text-mode mangling.
inline constexpr std::array<std::uint8_t, 8> kMagic = {0x89, 'N', 'T', 'F', 'F', '\r', '\n', 0x1A};
inline constexpr std::size_t kMaxKernelName = 256;  // the NEFF header's name field size
inline constexpr std::size_t kMaxTarget = 64;
inline constexpr double kMaxClockGhz = 1000.0;
inline constexpr std::uint64_t kMaxSemaphoreWaits = 0xFFFF;  // per instruction record

// Record tags. An instruction's tag carries its engine in the low bits.
inline constexpr std::uint8_t kTagInstruction = 0x10;  // 0x10 + isa::Engine (0..4)
inline constexpr std::uint8_t kTagDma = 0x20;
inline constexpr std::uint8_t kTagSemaphore = 0x30;
inline constexpr std::uint8_t kTagTrailer = 0xFF;

// Instruction flags: which optional fields follow.
inline constexpr std::uint8_t kHasSemaphoreWait = 1 << 0;
inline constexpr std::uint8_t kHasPortWait = 1 << 1;
inline constexpr std::uint8_t kHasDmaWait = 1 << 2;
inline constexpr std::uint8_t kHasSemaphoreWaits = 1 << 3;  // version 1: the longest wait only
inline constexpr std::uint8_t kHasBytes = 1 << 4;
inline constexpr std::uint8_t kHasFlops = 1 << 5;
inline constexpr std::uint8_t kHasThrottle = 1 << 6;  // the Tensor throttle (issue 24)
inline constexpr std::uint8_t kKnownFlags = 0x7F;

inline std::uint64_t zigzag(std::uint64_t wrapped_difference) {
  const auto v = static_cast<std::int64_t>(wrapped_difference);
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::uint64_t unzigzag(std::uint64_t z) {
  return (z >> 1) ^ (~(z & 1) + 1);
}

// FNV-1a, 64 bit: cheap, and enough to tell a damaged file from a good one.
inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
inline constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;
inline std::uint64_t fnv1a(std::uint64_t h, const std::uint8_t* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * kFnvPrime;
  return h;
}

// What each delta is taken against: the previous record of the same kind (instructions:
// of the same engine). Writer and reader update it identically.
struct DeltaState {
  std::array<std::uint32_t, isa::kEngineCount> next_index{};  // previous index + 1
  std::array<std::uint64_t, isa::kEngineCount> end_ps{};
  std::array<std::uint64_t, isa::kEngineCount> end_cycle{};
  std::uint64_t dma_issue_ps = 0;
  std::uint64_t semaphore_ps = 0;
};

// Bytes of the record being written.
class Encoder {
 public:
  void u8(std::uint8_t b) { bytes_.push_back(b); }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      bytes_.push_back(static_cast<std::uint8_t>(v | 0x80));
      v >>= 7;
    }
    bytes_.push_back(static_cast<std::uint8_t>(v));
  }
  void delta(std::uint64_t value, std::uint64_t base) { varint(zigzag(value - base)); }
  void raw(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
  }
  void u16le(std::uint16_t v) { append_le16(bytes_, v); }
  void u64le(std::uint64_t v) { append_le64(bytes_, v); }
  void text(std::string_view s) {
    varint(s.size());
    raw(s.data(), s.size());
  }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  void clear() { bytes_.clear(); }

 private:
  std::vector<std::uint8_t> bytes_;
};

}  // namespace neuronsim::traces::ntff
