#pragma once
// The region of memory an access pattern touches, as a bounding box: a memory, the
// absolute partitions and the byte range within each partition (SBUF/PSUM), or a byte
// range of one tensor (HBM). Used for the dependence test between instructions, for PSUM
// bank conflicts and for byte accounting. A box over-approximates strided patterns: two
// interleaved patterns may be reported as overlapping (conservative: it only ever adds
// the dependent-instruction overhead, never removes it).
#include <cstdint>

#include "isa/kernel.hpp"

namespace neuronsim::memory {

struct Footprint {
  isa::MemSpace space = isa::MemSpace::sbuf;
  std::uint32_t tensor = 0;                              // HBM only
  std::uint32_t first_partition = 0, end_partition = 0;  // SBUF/PSUM: [first, end)
  std::uint64_t first_byte = 0, end_byte = 0;            // [first, end); per partition
};

Footprint footprint(const isa::Kernel& k, const isa::AccessPattern& ap);
bool overlaps(const Footprint& a, const Footprint& b);

// Bytes the access pattern moves: elements x element size.
std::uint64_t access_bytes(const isa::AccessPattern& ap);

// Bytes per partition row that are contiguous in memory: the innermost free dims that are
// dense (stride 1, then each outer stride equal to the elements inside it) times the
// element size. A strided innermost dim gives one element per run.
std::uint64_t contiguous_row_bytes(const isa::AccessPattern& ap);

}  // namespace neuronsim::memory
