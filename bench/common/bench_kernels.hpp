#pragma once
// Kernels the benchmarks run, built in memory (no files): each stresses one part of the
// simulator, and each is deterministic so that figures compare across commits.
#include <cstdint>
#include <vector>

#include "isa/kernel.hpp"

namespace neuronsim::bench {

// A [128, free] tile of allocation `alloc` in SBUF or PSUM.
isa::AccessPattern tile(std::uint32_t alloc, isa::DType t, std::uint32_t free,
                        isa::MemSpace s = isa::MemSpace::sbuf);
// Rows first_row .. first_row+127 of the [rows, cols] HBM tensor `tensor`.
isa::AccessPattern hbm_rows(std::uint32_t tensor, isa::DType t, std::uint32_t first_row,
                            std::uint32_t cols);
isa::Instruction make(isa::Operation op, std::vector<isa::SemWait> waits,
                      std::vector<isa::SemSignal> signals);

// The engine loop alone, shaped as the bare SystemC ceiling (suite/ceiling.cpp): five
// engines, `per_engine` nops each; every instruction of engines 1..4 waits for the same
// instruction of the engine before it. 5 * per_engine instructions, no memory touched.
isa::Kernel chain_kernel(std::uint32_t per_engine);

// A double-buffered compute pipeline, 10 instructions per iteration across all five
// engines (matmul, transpose, activations, vector ops, iota, two DMA copies).
isa::Kernel pipeline_kernel(int iterations);

// DMA only: `transfers` copies of a [128, 64] bf16 tile on the Sync engine, alternating
// loads (HBM -> SBUF) and stores (SBUF -> HBM) on two queues of 16 DMA engines each.
isa::Kernel dma_kernel(std::uint32_t transfers);

}  // namespace neuronsim::bench
