#include "memory/memory_image.hpp"

#include "isa/error.hpp"

namespace neuronsim::memory {

MemoryImage::MemoryImage(const isa::Kernel& kernel, const isa::TargetLimits& limits,
                         UninitFill fill)
    : kernel_(kernel),
      partitions_(limits.partitions),
      sbuf_row_bytes_(limits.sbuf_bytes_per_partition),
      psum_row_bytes_(limits.psum_bytes_per_partition) {
  const std::uint8_t byte = fill == UninitFill::poison ? kPoisonByte : 0;
  sbuf_.assign(static_cast<std::size_t>(partitions_) * sbuf_row_bytes_, byte);
  psum_.assign(static_cast<std::size_t>(partitions_) * psum_row_bytes_, byte);
  hbm_.reserve(kernel.tensors.size());
  for (const auto& t : kernel.tensors) {
    if (t.role == isa::TensorRole::constant && t.data.size() == t.bytes())
      hbm_.push_back(t.data);
    else
      hbm_.emplace_back(t.bytes(), byte);
  }
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
  return hbm_[tensor].data();
}

void MemoryImage::bind_tensor(std::uint32_t tensor, const std::vector<std::uint8_t>& bytes) {
  if (tensor >= hbm_.size())
    throw Error("memory: HBM tensor #" + std::to_string(tensor) + " does not exist");
  if (bytes.size() != hbm_[tensor].size())
    throw Error("tensor '" + kernel_.tensors[tensor].name + "': expected " +
                std::to_string(hbm_[tensor].size()) + " bytes, got " +
                std::to_string(bytes.size()));
  hbm_[tensor] = bytes;
}

const std::vector<std::uint8_t>& MemoryImage::tensor_bytes(std::uint32_t tensor) const {
  if (tensor >= hbm_.size())
    throw Error("memory: HBM tensor #" + std::to_string(tensor) + " does not exist");
  return hbm_[tensor];
}

}  // namespace neuronsim::memory
