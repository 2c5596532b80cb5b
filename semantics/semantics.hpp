#pragma once
// What an instruction does, as plain C++ over a MemoryView (no SystemC, no timing).
// Vector, Scalar and GpSimd compute in fp32 and cast on write; matmul accumulates in
// fp32 in PSUM. The kernel must have been validated: execute() trusts operand bounds.
#include <cstdint>

#include "isa/instruction.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::isa {

// Where the bytes of each buffer live. For SBUF/PSUM, `partition` is the absolute
// partition (allocation start + access-pattern start + i) and the result points at byte 0
// of that partition's row of the memory; for HBM the partition is ignored and the result
// points at byte 0 of the tensor.
class MemoryView {
 public:
  virtual ~MemoryView() = default;
  virtual std::uint8_t* row(MemSpace space, std::uint32_t partition) = 0;
  virtual std::uint8_t* hbm_tensor(std::uint32_t tensor) = 0;
};

// Performs the instruction's effect on memory. DmaCopy copies the whole transfer at once
// (the DMA model decides when it happens). Nop does nothing.
void execute(const Kernel& k, const Instruction& instr, MemoryView& mem);

}  // namespace neuronsim::isa
