#pragma once
// An access pattern names the elements one operand of an instruction touches
// (reference section 2): a memory and buffer, a start partition and partition count,
// and up to four free dimensions of (stride, size) in elements, outermost first.
#include <array>
#include <cstdint>
#include <string_view>

#include "isa/dtype.hpp"

namespace neuronsim::isa {

enum class MemSpace : std::uint8_t { hbm, sbuf, psum };
std::string_view mem_space_name(MemSpace s);

inline constexpr int kMaxFreeDims = 4;

struct Dim {
  std::int32_t stride = 1;  // elements; must fit int16 (validated)
  std::uint32_t size = 1;   // elements; must fit uint16 (validated)
  bool operator==(const Dim& o) const { return stride == o.stride && size == o.size; }
  bool operator!=(const Dim& o) const { return !(*this == o); }
};

// The one-byte fields come first so that the pattern packs into 64 bytes (a kernel holds
// millions of them: docs/performance.md).
struct AccessPattern {
  MemSpace space = MemSpace::sbuf;
  DType dtype = DType::fp32;
  std::uint8_t ndims = 1;  // number of free dimensions in use, 1..kMaxFreeDims
  // HBM: index into Kernel::tensors. SBUF/PSUM: index into Kernel::allocations.
  std::uint32_t buffer = 0;
  // SBUF/PSUM: first partition, relative to the allocation's start partition.
  // HBM: index of the first row (the partition axis maps onto rows of the tensor).
  std::uint32_t start_partition = 0;
  std::uint32_t partitions = 1;
  // HBM only: elements between consecutive partition rows. Zero for SBUF/PSUM, where the
  // partition axis is the physical lane.
  std::int64_t partition_stride = 0;
  // Bytes from the start of the buffer (per partition for SBUF/PSUM) to element 0.
  std::uint64_t byte_offset = 0;
  std::array<Dim, kMaxFreeDims> dims{};  // outermost first; dims[ndims-1] is innermost

  std::uint64_t free_elems() const;  // product of the used dims' sizes
  std::uint64_t elems() const { return free_elems() * partitions; }
  bool operator==(const AccessPattern& o) const;
  bool operator!=(const AccessPattern& o) const { return !(*this == o); }
};

}  // namespace neuronsim::isa
