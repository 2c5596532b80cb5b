#pragma once
// How long an instruction occupies its engine, in cycles of that engine's clock: the
// published NeuronCore-v2 formulas of reference section 4, scaled for v3/v4 by datapath
// widths and performance modes as the target's CostParams say. A pure function of the
// instruction and the parameters: no simulation state, no SystemC.
#include <cstdint>
#include <optional>

#include "isa/instruction.hpp"
#include "isa/kernel.hpp"
#include "params/cost_params.hpp"

namespace neuronsim::isa {

// What the engine loop knows about the neighbourhood of an instruction.
struct CostContext {
  // The instruction reads what the previous instruction on this engine wrote
  // (a dependent back-to-back instruction pays the static overhead if it is tiny).
  bool depends_on_previous = false;
};

// Cycles the engine is busy with `instr` (for Matmul and MatmulMx: the MultiplyMoving part
// only; see load_stationary_cycles). DmaCopy costs the issuing engine nothing here: its
// descriptor and transfer time are the DMA model's.
std::uint64_t cycles(const Kernel& k, const Instruction& instr, Engine engine,
                     const params::CostParams& p, const CostContext& ctx = {});

// Both cycles() and load_stationary_cycles() are scaled by the engine's what-if percent
// (tensor.cost_percent, ...; docs/whatif.md); multiply_moving_cycles() is the bare formula.
// Matmul is LoadStationary then MultiplyMoving in hardware (reference section 3).
std::uint64_t load_stationary_cycles(const Matmul& mm, const params::CostParams& p);
std::uint64_t multiply_moving_cycles(const Matmul& mm, const params::CostParams& p);
// nc_matmul_mx's two parts, as Matmul's (docs/cost-model.md).
std::uint64_t load_stationary_cycles(const MatmulMx& mm, const params::CostParams& p);
std::uint64_t multiply_moving_cycles(const MatmulMx& mm, const params::CostParams& p);
// The LoadStationary part of whichever matmul `instr` is; none for the other opcodes.
std::optional<std::uint64_t> load_stationary_cycles(const Instruction& instr,
                                                    const params::CostParams& p);

// Floating-point operations an instruction performs (2*K*M*N for matmul, one per
// element produced for elementwise ops), for the profile's flops figures.
std::uint64_t flops(const Instruction& instr);

}  // namespace neuronsim::isa
