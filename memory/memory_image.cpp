#include "memory/memory_image.hpp"

#include <string>

#include "isa/error.hpp"

namespace neuronsim::memory {

MemoryImage::MemoryImage(const isa::TargetLimits& limits)
    : partitions_(limits.partitions),
      sbuf_row_bytes_(limits.sbuf_bytes_per_partition),
      psum_row_bytes_(limits.psum_bytes_per_partition) {}

void MemoryImage::begin_launch(std::vector<std::uint8_t*> tensors, UninitFill fill) {
  const std::uint8_t byte = fill_byte(fill);
  sbuf_.assign(static_cast<std::size_t>(partitions_) * sbuf_row_bytes_, byte);
  psum_.assign(static_cast<std::size_t>(partitions_) * psum_row_bytes_, byte);
  hbm_ = std::move(tensors);
}

std::uint8_t* MemoryImage::row(isa::MemSpace space, std::uint32_t partition) {
  if (partition >= partitions_)
    throw Error("memory: partition " + std::to_string(partition) + " is outside the " +
                std::to_string(partitions_) + " partitions of " +
                std::string(isa::mem_space_name(space)));
  switch (space) {
    case isa::MemSpace::sbuf:
      return sbuf_.data() + partition * sbuf_row_bytes_;
    case isa::MemSpace::psum:
      return psum_.data() + partition * psum_row_bytes_;
    case isa::MemSpace::hbm:
      break;
  }
  throw Error("memory: HBM has no partition rows; use hbm_tensor()");
}

std::uint8_t* MemoryImage::hbm_tensor(std::uint32_t tensor) {
  if (tensor >= hbm_.size())
    throw Error("memory: HBM tensor #" + std::to_string(tensor) + " does not exist");
  return hbm_[tensor];
}

}  // namespace neuronsim::memory
