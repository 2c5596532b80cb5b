#pragma once
// One Vector, Scalar or GpSimd instruction as a spec's args describe it, with operands of
// its own, so a measuring kernel can hold a few of them without data dependencies.
// Keys of the args object (all optional except instr):
//   instr       activation | tensor_scalar | tensor_copy | tensor_tensor |
//               scalar_tensor_tensor | tensor_reduce | bn_stats | bn_aggr | memset |
//               iota | affine_select | transpose (the Vector engine's)
//   engine      default: the engine NKI runs it on (Scalar for activation, GpSimd for iota
//               and affine_select, Vector for the rest)
//   dtype       of every streamed operand (fp32)
//   n           elements per partition of the main tensor (1024)
//   partitions  (128)
//   stride      innermost element stride of the streamed operands (1 = contiguous)
//   op, op1     AluOps (add; op1 none); func: ActFunc (copy)
//   reduce      with a [P,1] reduction output; scale_bias: activation with both
//   psum        which operand lives in PSUM: "src" (the input, tensor_tensor's a) or "dst"
//   value       memset's value (0); reciprocal: tensor_scalar computes 1/x
#include <string>

#include "builder/builder.hpp"
#include "spec_table.hpp"

namespace validation {

// Appends the instruction to `b`; its allocations' names end in `tag`, so several can
// share a kernel. Returns the engine it runs on. Throws std::runtime_error naming `where`
// for an unknown instr or key value.
neuronsim::isa::Engine append_instr(neuronsim::isa::Builder& b, const nlohmann::json& args,
                                    const std::string& tag, const std::string& where);

// The elements per partition the instruction streams (n), for rates.
std::uint32_t instr_elems(const nlohmann::json& args);
std::uint32_t instr_partitions(const nlohmann::json& args);

}  // namespace validation
