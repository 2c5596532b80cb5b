#pragma once
// The byte-level writer and reader of the instruction-stream encoding
// (instruction_stream.hpp): varints, zigzagged signed varints, raw immediates and the
// compact access pattern. Internal to isa/: the field kinds (field_kind.hpp) encode their
// values with these, instruction_stream.cpp the record around them.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "isa/access_pattern.hpp"

namespace neuronsim::isa::stream_detail {

// An access pattern is 5 bytes (space, dtype, ndims, a mask of which scalar members differ
// from their defaults, a mask of which dims differ from Dim{}) followed by the members the
// masks name as varints (signed ones zigzagged).
inline constexpr std::uint8_t kHasBuffer = 1;
inline constexpr std::uint8_t kHasStartPartition = 2;
inline constexpr std::uint8_t kHasPartitions = 4;  // partitions != 1
inline constexpr std::uint8_t kHasPartitionStride = 8;
inline constexpr std::uint8_t kHasByteOffset = 16;

// The most bytes a pattern encodes to (varints of 32 bits take 5, of 64 bits 10).
inline constexpr std::size_t kMaxPatternBytes = 5 + 3 * 5 + 10 + 10 + kMaxFreeDims * (5 + 5);

inline std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
inline std::int64_t unzigzag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

// Writes through a raw pointer into room the caller sized with the field kinds'
// max_stream_bytes: a vector push_back per byte was a quarter of loading a NEFF.
class Writer {
 public:
  explicit Writer(std::uint8_t* p) : p_(p) {}
  std::uint8_t* position() const { return p_; }
  void u8(std::uint8_t v) { *p_++ = v; }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      *p_++ = static_cast<std::uint8_t>(v | 0x80);
      v >>= 7;
    }
    *p_++ = static_cast<std::uint8_t>(v);
  }
  void svarint(std::int64_t v) { varint(zigzag(v)); }
  std::uint8_t* varint_end(std::uint64_t v) {
    varint(v);
    return p_;
  }
  template <typename T>
  void raw(const T& v) {
    std::memcpy(p_, &v, sizeof(T));
    p_ += sizeof(T);
  }

  void ap(const AccessPattern& a) {
    u8(static_cast<std::uint8_t>(a.space));
    u8(static_cast<std::uint8_t>(a.dtype));
    u8(a.ndims);
    std::uint8_t mask = 0;
    if (a.buffer != 0) mask |= kHasBuffer;
    if (a.start_partition != 0) mask |= kHasStartPartition;
    if (a.partitions != 1) mask |= kHasPartitions;
    if (a.partition_stride != 0) mask |= kHasPartitionStride;
    if (a.byte_offset != 0) mask |= kHasByteOffset;
    u8(mask);
    std::uint8_t dims = 0;
    for (int i = 0; i < kMaxFreeDims; ++i)
      if (a.dims[i] != Dim{}) dims |= static_cast<std::uint8_t>(1u << i);
    u8(dims);
    if (mask & kHasBuffer) varint(a.buffer);
    if (mask & kHasStartPartition) varint(a.start_partition);
    if (mask & kHasPartitions) varint(a.partitions);
    if (mask & kHasPartitionStride) svarint(a.partition_stride);
    if (mask & kHasByteOffset) varint(a.byte_offset);
    for (int i = 0; i < kMaxFreeDims; ++i) {
      if (!(dims & (1u << i))) continue;
      svarint(a.dims[i].stride);
      varint(a.dims[i].size);
    }
  }

 private:
  std::uint8_t* p_;
};

class Reader {
 public:
  explicit Reader(const std::uint8_t* p) : p_(p) {}
  const std::uint8_t* position() const { return p_; }
  std::uint8_t u8() { return *p_++; }
  std::uint64_t varint() {
    std::uint64_t v = *p_++;
    if (v < 0x80) return v;
    v &= 0x7f;
    for (int shift = 7;; shift += 7) {
      const std::uint64_t b = *p_++;
      v |= (b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  }
  std::int64_t svarint() { return unzigzag(varint()); }
  template <typename T>
  T raw() {
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }

  void ap(AccessPattern& a) {
    a.space = static_cast<MemSpace>(u8());
    a.dtype = static_cast<DType>(u8());
    a.ndims = u8();
    const std::uint8_t mask = u8();
    const std::uint8_t dims = u8();
    a.buffer = mask & kHasBuffer ? static_cast<std::uint32_t>(varint()) : 0;
    a.start_partition = mask & kHasStartPartition ? static_cast<std::uint32_t>(varint()) : 0;
    a.partitions = mask & kHasPartitions ? static_cast<std::uint32_t>(varint()) : 1;
    a.partition_stride = mask & kHasPartitionStride ? svarint() : 0;
    a.byte_offset = mask & kHasByteOffset ? varint() : 0;
    for (int i = 0; i < kMaxFreeDims; ++i) {
      if (dims & (1u << i)) {
        a.dims[i].stride = static_cast<std::int32_t>(svarint());
        a.dims[i].size = static_cast<std::uint32_t>(varint());
      } else {
        a.dims[i] = Dim{};
      }
    }
  }

 private:
  const std::uint8_t* p_;
};

}  // namespace neuronsim::isa::stream_detail
