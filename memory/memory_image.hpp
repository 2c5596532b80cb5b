#pragma once
// The bytes one NeuronCore's instructions see: its SBUF (partitions x bytes per partition)
// and PSUM (partitions x banks x bank bytes), sized from the target's limits (reference
// sections 1-2), and, for the launch running, where each of the kernel's HBM tensors is
// (a pointer into device HBM, or a staging copy). Implements isa::MemoryView so the
// functional semantics run directly on it. Plain C++: no SystemC, no timing.
#include <cstdint>
#include <vector>

#include "isa/kernel.hpp"
#include "memory/lazy_bytes.hpp"
#include "params/target_limits.hpp"
#include "semantics/semantics.hpp"

namespace neuronsim::memory {

// What memory nobody has written yet holds.
enum class UninitFill : std::uint8_t {
  zero,  // all bytes 0x00
  // As NKI's simulator poisons it (reference section 2): floats read NaN and integers the
  // target's sbuf.uninitialised_int_fill (4), so a read of uninitialised data shows up in
  // the outputs. Memory is typed by what it was declared as: an allocation's or an HBM
  // tensor's dtype; bytes outside every declaration are 0xFF.
  poison,
};
// 0xFF bytes are NaN in every float format (fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2).
inline constexpr std::uint8_t kPoisonByte = 0xFF;
inline std::uint8_t fill_byte(UninitFill fill) {
  return fill == UninitFill::poison ? kPoisonByte : 0;
}
// Fills `bytes` bytes at `data`, elements of dtype `t`, as never-written memory reads: all
// zero, or poisoned (integers `int_fill`, in 0..127 so every integer dtype holds it as is).
void fill_uninitialised(std::uint8_t* data, std::uint64_t bytes, isa::DType t, UninitFill fill,
                        std::int32_t int_fill);

class MemoryImage : public isa::MemoryView {
 public:
  // `int_fill`: what poisoned integer elements read (sbuf.uninitialised_int_fill).
  MemoryImage(const params::TargetLimits& limits, std::int32_t int_fill);

  // A launch of `k` begins: SBUF and PSUM start as `fill` (allocated on first use), each of
  // k's allocations as its dtype (in declaration order, so of two overlapping allocations
  // the later one's dtype wins), and HBM tensor i of the kernel is the memory at tensors[i].
  void begin_launch(const isa::Kernel& k, std::vector<std::uint8_t*> tensors, UninitFill fill);

  std::uint8_t* row(isa::MemSpace space, std::uint32_t partition) override;
  std::uint8_t* hbm_tensor(std::uint32_t tensor) override;

  std::uint32_t partitions() const { return partitions_; }
  std::uint64_t sbuf_bytes_per_partition() const { return sbuf_row_bytes_; }
  std::uint64_t psum_bytes_per_partition() const { return psum_row_bytes_; }

 private:
  std::uint32_t partitions_;
  std::int32_t int_fill_;
  std::uint64_t sbuf_row_bytes_;
  std::uint64_t psum_row_bytes_;
  LazyBytes sbuf_;  // mapped by the first launch; zeroing returns pages (lazy_bytes.hpp)
  LazyBytes psum_;
  std::vector<std::uint8_t*> hbm_;  // one per Kernel::tensors entry
};

}  // namespace neuronsim::memory
