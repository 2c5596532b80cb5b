#pragma once
// Where SBUF and PSUM allocations without an explicit byte offset go (docs/assembly.md,
// "Placement"). Deterministic first fit, per memory space, over the partition ranges the
// allocations cover. Placement knows no capacities: validation checks that it all fits.
#include <cstdint>
#include <vector>

#include "isa/kernel.hpp"

namespace neuronsim::isa {

// Every placed offset is a multiple of this: a multiple of every element size, so any
// dtype view of an allocation is aligned, and the 64-byte boundary DMA descriptors and
// the NEFF's variable alignment are usually given in. The reference publishes no rule,
// so this is our choice; the waste is under 64 bytes per partition per allocation.
inline constexpr std::uint32_t kPlacementAlignment = 64;
// PSUM is 8 banks of 2 KiB per partition on every generation (reference section 1), and a
// matmul result must lie in one bank (section 2): an automatic PSUM allocation of at most
// one bank never straddles a bank boundary, a larger one starts on a boundary.
inline constexpr std::uint32_t kPsumBankBytes = 2048;

// Assigns byte_offset to each allocation i with fixed[i] == false (fixed.size() must
// equal allocs.size()). Fixed allocations are taken as they are; the others are placed in
// order at the lowest aligned offset that overlaps no allocation already placed in the
// same space on a shared partition. Throws neuronsim::Error if an offset passes 4 GiB.
void place_allocations(std::vector<Allocation>& allocs, const std::vector<bool>& fixed);

}  // namespace neuronsim::isa
