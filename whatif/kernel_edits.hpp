#pragma once
// Kernels changed in one respect, for the what-if re-runs that a target parameter cannot
// express (docs/whatif.md): one semaphore wait of one instruction taken out (each wait on
// the critical path), every wait of one engine on one semaphore taken out (an engine idle
// on one semaphore), one DMA queue spread over more DMA engines (a queue serialised on
// one). Everything else is unchanged, so the re-run shows what that one thing costs.
#include <cstddef>
#include <cstdint>

#include "isa/engine.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::whatif {

// `wait` indexes the instruction's waits (Instruction::waits, the trace's wait order).
// Throws neuronsim::Error when the instruction or the wait does not exist.
isa::Kernel without_wait(const isa::Kernel& k, isa::Engine engine, std::size_t index,
                         std::size_t wait);

// Every wait on `semaphore` of `engine`'s instructions taken out.
isa::Kernel without_waits_on(const isa::Kernel& k, isa::Engine engine, std::uint16_t semaphore);

// Queue `queue` on DMA engines first_engine .. first_engine + engines - 1.
isa::Kernel with_queue_engines(const isa::Kernel& k, std::uint16_t queue, std::uint8_t first_engine,
                               std::uint8_t engines);

}  // namespace neuronsim::whatif
