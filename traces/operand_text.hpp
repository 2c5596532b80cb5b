#pragma once
// The operands of one instruction as text, for profile tables: "dst <- src, src" with
// each access pattern in the assembly language's slice form (isa/view.hpp).
#include <optional>
#include <string>

#include "isa/kernel.hpp"
#include "traces/records.hpp"

namespace neuronsim::traces {

// Never throws: an operand that cannot be printed shows as "?".
std::string operand_text(const isa::Kernel& k, const isa::Instruction& instr);

// The kernel's instruction behind a record, or nullptr when the index is out of range.
// A copy, decoded (kernels hold their streams encoded), or nothing past the end.
std::optional<isa::Instruction> find_instruction(const isa::Kernel& k, isa::Engine e,
                                                 std::uint32_t index);

// A DMA queue's name ("queue 3" without a kernel or past its queues).
std::string queue_name(const isa::Kernel* k, std::uint16_t queue);
// Who updated a semaphore, by engine or queue: "vector", a DMA queue's name, "unknown" (its
// initial value).
std::string source_name(const isa::Kernel* k, const SignalSource& s);

}  // namespace neuronsim::traces
