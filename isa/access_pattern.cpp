#include "isa/access_pattern.hpp"

namespace neuronsim::isa {

std::string_view mem_space_name(MemSpace s) {
  switch (s) {
    case MemSpace::hbm:
      return "hbm";
    case MemSpace::sbuf:
      return "sbuf";
    case MemSpace::psum:
      return "psum";
  }
  return "?";
}

std::uint64_t AccessPattern::free_elems() const {
  std::uint64_t n = 1;
  for (int i = 0; i < ndims; ++i)
    n *= dims[i].size;
  return n;
}

bool AccessPattern::operator==(const AccessPattern& o) const {
  if (space != o.space || buffer != o.buffer || dtype != o.dtype ||
      start_partition != o.start_partition || partitions != o.partitions ||
      partition_stride != o.partition_stride || byte_offset != o.byte_offset || ndims != o.ndims)
    return false;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] != o.dims[i]) return false;
  return true;
}

}  // namespace neuronsim::isa
