#pragma once
// The operand facts the cost model reads off an instruction (docs/cost-model.md):
// its N (elements per partition), the tensors it streams through the datapath, their
// dtype class and their innermost stride. Pure functions, no parameters.
#include <cstdint>
#include <vector>

#include "isa/instruction.hpp"

namespace neuronsim::isa::cost {

// N of the published formulas (reference section 4): elements per partition of the
// instruction's main tensor, which is the input ("data") for everything that has one and
// the output for fills (memset, iota). Matmul: the moving tensor's free size. Nop: 0.
std::uint64_t elems_per_partition(const Instruction& instr);

// The full-size tensors an instruction streams (inputs and outputs). Per-partition [P,1]
// operands (scalar vectors, bias, reduce_dst) are read or written once per partition, so
// they neither set the datapath width nor pay the stride penalty.
std::vector<const AccessPattern*> streamed_operands(const Instruction& instr);

// bf16, fp16, fp8_e4m3, fp8_e5m2: the floats the wider 16-bit datapaths of v3/v4 serve.
// bf16 / fp16, and fp8 where the target runs it at the 16-bit width (fp8_is_narrow).
bool is_narrow_float(DType t, bool fp8_is_narrow);

// Stride in elements of the innermost free dimension with more than one element; 1 when
// every dimension has one element (a single element is trivially contiguous).
std::int64_t effective_inner_stride(const AccessPattern& ap);
// Consecutive elements are adjacent in memory (stride 1; a broadcast stride 0 is not).
bool is_contiguous(const AccessPattern& ap);
// |effective inner stride| * element size.
std::uint64_t inner_stride_bytes(const AccessPattern& ap);

}  // namespace neuronsim::isa::cost
