#include "memory/memory_image.hpp"

#include <cstring>
#include <string>

#include "base/error.hpp"

namespace neuronsim::memory {

namespace {

void check_int_fill(std::int32_t int_fill) {
  if (int_fill < 0 || int_fill > 127)
    throw Error("memory: the uninitialised integer fill " + std::to_string(int_fill) +
                " is not in 0..127");
}

}  // namespace

void fill_uninitialised(std::uint8_t* data, std::uint64_t bytes, isa::DType t, UninitFill fill,
                        std::int32_t int_fill) {
  if (fill == UninitFill::zero || !isa::is_integer(t)) {
    std::memset(data, fill_byte(fill), bytes);
    return;
  }
  check_int_fill(int_fill);
  // Little-endian and non-negative: the value in the first byte, zeros above it.
  const std::size_t elem = isa::dtype_size(t);
  std::memset(data, 0, bytes);
  for (std::uint64_t i = 0; i + elem <= bytes; i += elem)
    data[i] = static_cast<std::uint8_t>(int_fill);
}

MemoryImage::MemoryImage(const params::TargetLimits& limits, std::int32_t int_fill)
    : partitions_(limits.partitions),
      int_fill_(int_fill),
      sbuf_row_bytes_(limits.sbuf_bytes_per_partition),
      psum_row_bytes_(limits.psum_bytes_per_partition) {
  check_int_fill(int_fill);
}

void MemoryImage::begin_launch(const isa::Kernel& k, std::vector<std::uint8_t*> tensors,
                               UninitFill fill) {
  const std::uint8_t byte = fill_byte(fill);
  if (!sbuf_.data()) {
    sbuf_ = LazyBytes(static_cast<std::size_t>(partitions_) * sbuf_row_bytes_);
    psum_ = LazyBytes(static_cast<std::size_t>(partitions_) * psum_row_bytes_);
  }
  sbuf_.fill(byte);
  psum_.fill(byte);
  hbm_ = std::move(tensors);
  if (fill != UninitFill::poison) return;
  // Integer allocations read int_fill_. Validation has checked that every allocation fits;
  // one that does not is skipped rather than written past its memory.
  for (const isa::Allocation& a : k.allocations) {
    const std::uint64_t row_bytes =
        a.space == isa::MemSpace::sbuf ? sbuf_row_bytes_ : psum_row_bytes_;
    if (!isa::is_integer(a.dtype) || a.space == isa::MemSpace::hbm ||
        std::uint64_t{a.start_partition} + a.partitions > partitions_ ||
        std::uint64_t{a.byte_offset} + a.bytes_per_partition() > row_bytes)
      continue;
    for (std::uint32_t p = a.start_partition; p < a.start_partition + a.partitions; ++p)
      fill_uninitialised(row(a.space, p) + a.byte_offset, a.bytes_per_partition(), a.dtype, fill,
                         int_fill_);
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
  return hbm_[tensor];
}

}  // namespace neuronsim::memory
