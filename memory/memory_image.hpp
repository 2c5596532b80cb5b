#pragma once
// The bytes one NeuronCore's instructions see: its SBUF (partitions x bytes per partition)
// and PSUM (partitions x banks x bank bytes), sized from the target's limits (reference
// sections 1-2), and, for the launch running, where each of the kernel's HBM tensors is
// (a pointer into device HBM, or a staging copy). Implements isa::MemoryView so the
// functional semantics run directly on it. Plain C++: no SystemC, no timing.
#include <cstdint>
#include <vector>

#include "isa/semantics.hpp"
#include "isa/target_limits.hpp"

namespace neuronsim::memory {

// What memory nobody has written yet holds.
enum class UninitFill : std::uint8_t {
  zero,  // all bytes 0x00
  // All bytes 0xFF: NaN in every float format (fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2),
  // so a read of uninitialised data shows up in the outputs. Integers read all-ones:
  // -1 for int8/int16/int32, the maximum (255, 65535, 4294967295) for unsigned types.
  poison,
};
inline constexpr std::uint8_t kPoisonByte = 0xFF;
inline std::uint8_t fill_byte(UninitFill fill) {
  return fill == UninitFill::poison ? kPoisonByte : 0;
}

class MemoryImage : public isa::MemoryView {
 public:
  explicit MemoryImage(const isa::TargetLimits& limits);

  // A launch begins: SBUF and PSUM start as `fill` (allocated on first use), and HBM
  // tensor i of the kernel is the memory at tensors[i].
  void begin_launch(std::vector<std::uint8_t*> tensors, UninitFill fill);

  std::uint8_t* row(isa::MemSpace space, std::uint32_t partition) override;
  std::uint8_t* hbm_tensor(std::uint32_t tensor) override;

  std::uint32_t partitions() const { return partitions_; }
  std::uint64_t sbuf_bytes_per_partition() const { return sbuf_row_bytes_; }
  std::uint64_t psum_bytes_per_partition() const { return psum_row_bytes_; }

 private:
  std::uint32_t partitions_;
  std::uint64_t sbuf_row_bytes_;
  std::uint64_t psum_row_bytes_;
  std::vector<std::uint8_t> sbuf_;
  std::vector<std::uint8_t> psum_;
  std::vector<std::uint8_t*> hbm_;  // one per Kernel::tensors entry
};

}  // namespace neuronsim::memory
