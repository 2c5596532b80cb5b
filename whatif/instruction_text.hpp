#pragma once
// How the what-if output names an instruction ("vector[12] tensor_tensor at k.py:33") and
// a semaphore, from the kernel, and writes a share.
#include <cstdint>
#include <string>

#include "isa/engine.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::whatif {

// engine[index] opcode, then "at" its source location (a traced kernel's Python line) or
// its assembly line when the kernel has either.
std::string instruction_text(const isa::Kernel& k, isa::Engine e, std::uint32_t index);
std::string semaphore_name(const isa::Kernel& k, std::uint16_t sem);
// A fraction as a percentage: 0.123 -> "12.3%".
std::string share_text(double fraction);

}  // namespace neuronsim::whatif
