#pragma once
// How fast an engine streams an instruction's elements compared with the published
// NeuronCore-v2 table (reference section 4): the datapath width chosen by engine, dtype
// and v3 performance mode (reference sections 1 and 4), and the strided-access penalty
// (reference section 2). With every width equal to the baseline and no strided operand,
// the rate is 1 and the v2 formulas come out unchanged. See docs/cost-model.md.
#include <cstdint>
#include <vector>

#include "isa/engine.hpp"
#include "isa/instruction.hpp"
#include "params/cost_params.hpp"

namespace neuronsim::isa::cost {

// Vector engine performance mode (v3 "performance modes", reference section 4).
enum class VectorMode : std::uint8_t {
  full,  // vector_elems_per_cycle_16bit: 4x on v3
  half,  // vector_elems_per_cycle_other: 2x on v3
  base,  // baseline_elems_per_cycle: v2 rate
};
VectorMode vector_mode(const Instruction& instr, const params::CostParams& p);

struct StreamRate {
  std::uint64_t baseline = 1;  // elems/cycle the published formulas assume
  std::uint64_t width = 1;     // elems/cycle this instruction streams at
  std::uint64_t penalty = 1;   // stride_penalty_factor when an operand is strided, else 1
};

// Rate of `instr` on `engine`. Tensor and Sync engines keep the baseline width (the
// Tensor formulas carry their own rates). Throws neuronsim::Error if a width it needs is 0.
StreamRate stream_rate(const Instruction& instr, Engine engine, const params::CostParams& p);

// stride_penalty_factor if any of `operands` (SBUF/PSUM) has an innermost stride above
// stride_penalty_bytes, else 1.
std::uint64_t stride_penalty(const std::vector<const AccessPattern*>& operands,
                             const params::CostParams& p);

// The N-proportional term num/den * elems, scaled by baseline/width and the penalty,
// rounded up: ceil(elems * num * baseline * penalty / (den * width)).
std::uint64_t stream_cycles(const StreamRate& r, std::uint64_t elems, std::uint64_t num = 1,
                            std::uint64_t den = 1);

// Throws neuronsim::Error naming the CostParams field when `value` is 0.
std::uint64_t require_nonzero(std::uint64_t value, const char* field);

}  // namespace neuronsim::isa::cost
