#pragma once
// Everything about an instruction that does not depend on the simulation's state,
// computed once before the run: its cost-model cycles, whether it depends on the previous
// instruction of its engine, the memory regions it touches and its bytes per memory.
#include <array>
#include <cstdint>
#include <vector>

#include "engines/observer.hpp"
#include "isa/for_each_field.hpp"
#include "isa/kernel.hpp"
#include "memory/footprint.hpp"
#include "memory/port_map.hpp"
#include "params/cost_params.hpp"

namespace neuronsim::engines {

// 16 bytes per instruction: a kernel's plans stay small next to its encoded stream. The
// footprints and byte counts are recomputed from the decoded instruction where they are
// needed (the dependence test here, the Tensor engine's write watch, tracing).
struct InstructionPlan {
  std::uint64_t cycles = 0;       // isa::cycles (Matmul: the MultiplyMoving part)
  std::uint32_t load_cycles = 0;  // Matmul, MatmulMx: LoadStationary
  bool depends_on_previous = false;
};

// Bytes `instr` reads and writes per memory space (for trace records).
void access_bytes(const isa::Instruction& instr, traces::BytesBySpace& read,
                  traces::BytesBySpace& written);

std::vector<InstructionPlan> plan_stream(const isa::Kernel& k, isa::Engine engine,
                                         const params::CostParams& cost);

// The memory ports each instruction of a stream holds (PortMap::ports_for), flattened:
// instruction i holds ports[first[i]] .. ports[first[i + 1]] - 1.
struct PortLists {
  std::vector<std::uint32_t> first;  // one more entry than instructions
  std::vector<memory::Port*> ports;
  memory::Port* const* of(std::size_t i) const { return ports.data() + first[i]; }
  std::size_t count(std::size_t i) const { return first[i + 1] - first[i]; }
};

// Everything a kernel's launches on one core share: each stream's plans and port lists
// (the ports are the core's). The Neuron runtime likewise loads a model once and
// executes it many times; a core keeps the plans of the kernels it ran (sim/).
struct KernelPlan {
  std::array<std::vector<InstructionPlan>, isa::kEngineCount> plans;
  std::array<PortLists, isa::kEngineCount> ports;
};
KernelPlan plan_kernel(const isa::Kernel& k, const params::CostParams& cost,
                       memory::PortMap& ports);

}  // namespace neuronsim::engines
