#pragma once
// Everything about an instruction that does not depend on the simulation's state,
// computed once before the run: its cost-model cycles, whether it depends on the previous
// instruction of its engine, the memory regions it touches and its bytes per memory.
#include <cstdint>
#include <vector>

#include "engines/observer.hpp"
#include "isa/cost_params.hpp"
#include "isa/kernel.hpp"
#include "memory/footprint.hpp"

namespace neuronsim::engines {

struct InstructionPlan {
  std::uint64_t cycles = 0;       // isa::cycles (Matmul: the MultiplyMoving part)
  std::uint64_t load_cycles = 0;  // Matmul: LoadStationary
  bool depends_on_previous = false;
  std::vector<memory::Footprint> reads, writes;
  BytesBySpace read_bytes{}, write_bytes{};
};

// Reads of one overlap writes of the other (the dependence test of CostContext).
bool reads_what_was_written(const InstructionPlan& later, const InstructionPlan& earlier);

std::vector<InstructionPlan> plan_stream(const isa::Kernel& k, isa::Engine engine,
                                         const isa::CostParams& cost);

}  // namespace neuronsim::engines
