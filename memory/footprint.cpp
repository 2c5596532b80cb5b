#include "memory/footprint.hpp"

#include <algorithm>

namespace neuronsim::memory {

namespace {

// Lowest and highest element offset reached by the free dims (strides may be negative).
void free_extent(const isa::AccessPattern& ap, std::int64_t& lo, std::int64_t& hi) {
  lo = 0;
  hi = 0;
  for (int d = 0; d < ap.ndims; ++d) {
    const std::int64_t reach = static_cast<std::int64_t>(ap.dims[d].stride) *
                               (static_cast<std::int64_t>(ap.dims[d].size) - 1);
    if (reach < 0)
      lo += reach;
    else
      hi += reach;
  }
}

}  // namespace

Footprint footprint(const isa::Kernel& k, const isa::AccessPattern& ap) {
  Footprint f;
  f.space = ap.space;
  const std::uint64_t esize = isa::dtype_size(ap.dtype);
  if (ap.space == isa::MemSpace::hbm) {
    // Compute engines never touch HBM, so the whole tensor is precise enough for the
    // dependence test; DMA ordering is the semaphores' job.
    f.tensor = ap.buffer;
    f.first_byte = 0;
    f.end_byte = ap.buffer < k.tensors.size() ? k.tensors[ap.buffer].bytes() : 0;
    return f;
  }
  std::uint32_t alloc_start = 0;
  std::uint64_t alloc_offset = 0;
  if (ap.buffer < k.allocations.size()) {
    alloc_start = k.allocations[ap.buffer].start_partition;
    alloc_offset = k.allocations[ap.buffer].byte_offset;
  }
  f.first_partition = alloc_start + ap.start_partition;
  f.end_partition = f.first_partition + ap.partitions;
  std::int64_t lo = 0, hi = 0;
  free_extent(ap, lo, hi);
  const std::int64_t base = static_cast<std::int64_t>(alloc_offset + ap.byte_offset);
  f.first_byte = static_cast<std::uint64_t>(
      std::max<std::int64_t>(0, base + lo * static_cast<std::int64_t>(esize)));
  f.end_byte = static_cast<std::uint64_t>(
      std::max<std::int64_t>(0, base + (hi + 1) * static_cast<std::int64_t>(esize)));
  return f;
}

bool overlaps(const Footprint& a, const Footprint& b) {
  if (a.space != b.space) return false;
  if (a.space == isa::MemSpace::hbm) {
    if (a.tensor != b.tensor) return false;
  } else if (a.first_partition >= b.end_partition || b.first_partition >= a.end_partition) {
    return false;
  }
  return a.first_byte < b.end_byte && b.first_byte < a.end_byte;
}

std::uint64_t access_bytes(const isa::AccessPattern& ap) {
  return ap.elems() * isa::dtype_size(ap.dtype);
}

std::uint64_t contiguous_row_bytes(const isa::AccessPattern& ap) {
  std::uint64_t run = 1;  // elements
  for (int d = ap.ndims - 1; d >= 0; --d) {
    const auto& dim = ap.dims[d];
    if (dim.size == 1) continue;
    if (dim.stride != static_cast<std::int64_t>(run)) break;
    run *= dim.size;
  }
  return run * isa::dtype_size(ap.dtype);
}

}  // namespace neuronsim::memory
