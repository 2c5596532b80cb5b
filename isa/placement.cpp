#include "isa/placement.hpp"

#include <limits>
#include <string>

#include "base/error.hpp"

namespace neuronsim::isa {

namespace {

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) {
  return (v + a - 1) / a * a;
}

bool share_partitions(const Allocation& a, const Allocation& b) {
  const std::uint64_t a_end = std::uint64_t{a.start_partition} + a.partitions;
  const std::uint64_t b_end = std::uint64_t{b.start_partition} + b.partitions;
  return a.start_partition < b_end && b.start_partition < a_end;
}

// The lowest offset >= `from` that satisfies the PSUM bank rule for `bytes`.
std::uint64_t bank_fit(MemSpace space, std::uint64_t from, std::uint64_t bytes) {
  if (space != MemSpace::psum || bytes == 0) return from;
  if (bytes > kPsumBankBytes) return align_up(from, kPsumBankBytes);
  if (from / kPsumBankBytes != (from + bytes - 1) / kPsumBankBytes)
    return align_up(from, kPsumBankBytes);
  return from;
}

}  // namespace

void place_allocations(std::vector<Allocation>& allocs, const std::vector<bool>& fixed) {
  if (fixed.size() != allocs.size())
    throw Error("place_allocations: " + std::to_string(fixed.size()) + " flags for " +
                std::to_string(allocs.size()) + " allocations");
  std::vector<const Allocation*> placed;
  for (std::size_t i = 0; i < allocs.size(); ++i)
    if (fixed[i]) placed.push_back(&allocs[i]);
  for (std::size_t i = 0; i < allocs.size(); ++i) {
    if (fixed[i]) continue;
    Allocation& a = allocs[i];
    const std::uint64_t bytes = a.bytes_per_partition();
    std::uint64_t offset = bank_fit(a.space, 0, bytes);
    // Each conflict moves the candidate past it, so the loop ends; at most one pass per
    // placed allocation is needed after the last move.
    for (bool moved = true; moved;) {
      moved = false;
      for (const Allocation* p : placed) {
        if (p->space != a.space || !share_partitions(*p, a) || bytes == 0) continue;
        if (p->bytes_per_partition() == 0) continue;
        const std::uint64_t p_begin = p->byte_offset;
        const std::uint64_t p_end = p_begin + p->bytes_per_partition();
        if (p_begin < offset + bytes && offset < p_end) {
          offset = bank_fit(a.space, align_up(p_end, kPlacementAlignment), bytes);
          moved = true;
        }
      }
    }
    if (offset > std::numeric_limits<std::uint32_t>::max())
      throw Error("allocation '" + a.name + "' cannot be placed below 4 GiB");
    a.byte_offset = static_cast<std::uint32_t>(offset);
    placed.push_back(&a);
  }
}

}  // namespace neuronsim::isa
