// execute(): dispatches an instruction to its semantics (semantics_*.cpp). What each
// instruction computes, and every numerical choice, is written up in docs/numerics.md.
#include "semantics/semantics.hpp"

#include "semantics/ops.hpp"

namespace neuronsim::isa {

void execute(const Kernel& k, const Instruction& instr, MemoryView& mem) {
  const sem::Site site{k, instr, mem};
  std::visit(
      [&](const auto& op) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(op)>, Nop>) sem::run(site, op);
      },
      instr.op);
}

}  // namespace neuronsim::isa
