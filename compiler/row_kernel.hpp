#pragma once
// Turns a row program into a kernel: a layout for its [N, 1] tensors (flat or whole,
// docs/compiler.md), buffers in SBUF (two per stage when they fit, one otherwise), the DMA
// loads and stores of every tile on the Sync engine, one instruction per step per tile,
// and every semaphore wait the data flow needs.
#include <string>

#include "compiler/row_program.hpp"
#include "isa/kernel.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::compiler {

// Throws neuronsim::Error naming `source` when the program does not fit the target (SBUF
// bytes per partition, free size, semaphores).
isa::Kernel emit_row_kernel(const RowProgram& p, const std::string& kernel_name,
                            const std::string& target, const params::TargetLimits& limits,
                            const std::string& source);

// The semaphores emit_row_kernel's kernel for `p` would declare, without emitting it (0
// for a program of rows too wide for SBUF, whose column-chunk kernel needs a handful): the
// fused partitioner splits a row launch that would need more than the target has.
std::uint32_t row_kernel_semaphores(const RowProgram& p, const std::string& target,
                                    const params::TargetLimits& limits);

// SBUF bytes per partition the program's buffers take with `nbuf` buffers per stage.
std::uint64_t row_sbuf_bytes(const RowProgram& p, std::uint32_t nbuf);

}  // namespace neuronsim::compiler
