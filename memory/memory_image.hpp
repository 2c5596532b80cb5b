#pragma once
// The bytes of one NeuronCore's memories: SBUF (partitions x bytes per partition), PSUM
// (partitions x banks x bank bytes) and HBM (one buffer per kernel tensor), sized from the
// target's limits (reference sections 1-2). Implements isa::MemoryView so the functional
// semantics run directly on it. Plain C++: no SystemC, no timing.
#include <cstdint>
#include <string>
#include <vector>

#include "isa/kernel.hpp"
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

class MemoryImage : public isa::MemoryView {
 public:
  // HBM buffers start as: constants -> their data; every other tensor -> `fill`.
  // Inputs are bound afterwards with bind_tensor().
  MemoryImage(const isa::Kernel& kernel, const isa::TargetLimits& limits, UninitFill fill);

  std::uint8_t* row(isa::MemSpace space, std::uint32_t partition) override;
  std::uint8_t* hbm_tensor(std::uint32_t tensor) override;

  // Replaces a tensor's bytes; `bytes.size()` must equal the tensor's size.
  void bind_tensor(std::uint32_t tensor, const std::vector<std::uint8_t>& bytes);
  const std::vector<std::uint8_t>& tensor_bytes(std::uint32_t tensor) const;

  std::uint32_t partitions() const { return partitions_; }
  std::uint64_t sbuf_bytes_per_partition() const { return sbuf_row_bytes_; }
  std::uint64_t psum_bytes_per_partition() const { return psum_row_bytes_; }

 private:
  const isa::Kernel& kernel_;
  std::uint32_t partitions_;
  std::uint64_t sbuf_row_bytes_;
  std::uint64_t psum_row_bytes_;
  std::vector<std::uint8_t> sbuf_;
  std::vector<std::uint8_t> psum_;
  std::vector<std::vector<std::uint8_t>> hbm_;  // one buffer per Kernel::tensors entry
};

}  // namespace neuronsim::memory
