#pragma once
// Rows too wide for SBUF (docs/compiler.md, "Wide rows"): a row program whose buffers do
// not fit even single-buffered, or whose rows exceed one instruction's free size, runs
// each 128-row tile in column chunks. A row reduction needs every chunk before its result
// can be used, so the program runs in phases: phase k computes, chunk by chunk, what
// needs no reduction finished after phase k - 1, and combines the chunks' partial
// reductions at its end (a max or a sum over one column per chunk). Row values a later
// phase reads are recomputed there from the inputs, which are loaded again (an RMSNorm is
// two passes over x). Softmax's max and exp-sum share a phase (online softmax: each
// chunk's sum is rescaled to the final max at the end), so it is two passes too.
#include <string>

#include "compiler/row_program.hpp"
#include "isa/kernel.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::compiler {

// Throws neuronsim::Error naming `source` and the launch when even one column per chunk
// does not fit.
isa::Kernel emit_wide_row_kernel(const RowProgram& p, const std::string& kernel_name,
                                 const std::string& target, const params::TargetLimits& limits,
                                 const std::string& source);

}  // namespace neuronsim::compiler
