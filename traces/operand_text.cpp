#include "traces/operand_text.hpp"

#include <variant>

#include "base/error.hpp"
#include "isa/view.hpp"

namespace neuronsim::traces {

namespace {
std::string pattern_text(const isa::Kernel& k, const isa::AccessPattern* ap) {
  try {
    return isa::format_pattern(k, *ap);
  } catch (const Error&) {
    return "?";
  }
}
}  // namespace

std::string operand_text(const isa::Kernel& k, const isa::Instruction& instr) {
  const isa::Operands ops = isa::operands(instr);
  std::string s;
  for (std::size_t i = 0; i < ops.writes.size(); ++i)
    s += (i ? ", " : "") + pattern_text(k, ops.writes[i]);
  if (!ops.reads.empty()) {
    s += ops.writes.empty() ? "" : " <- ";
    for (std::size_t i = 0; i < ops.reads.size(); ++i)
      s += (i ? ", " : "") + pattern_text(k, ops.reads[i]);
  }
  if (const auto* dma = std::get_if<isa::DmaCopy>(&instr.op))
    s += " via " + agent_name(&k, Agent{Agent::Kind::dma_queue, dma->queue});
  return s;
}

std::optional<isa::Instruction> find_instruction(const isa::Kernel& k, isa::Engine e,
                                                 std::uint32_t index) {
  const auto& stream = k.stream(e);
  if (index >= stream.size()) return std::nullopt;
  return stream[index];
}

std::string agent_name(const isa::Kernel* k, const Agent& a) {
  if (a.kind == Agent::Kind::engine && a.id < isa::kEngineCount)
    return std::string(isa::engine_name(static_cast<isa::Engine>(a.id)));
  if (a.kind == Agent::Kind::dma_queue) {
    if (k && a.id < k->queues.size()) return k->queues[a.id].name;
    return "queue " + std::to_string(a.id);
  }
  return "unknown";
}

}  // namespace neuronsim::traces
