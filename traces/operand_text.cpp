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
  if (const auto* dma = std::get_if<isa::DmaCopy>(&instr.op)) {
    if (dma->transpose) s += " transposed";  // the profile names a DMA transpose
    s += " via " + queue_name(&k, dma->queue);
  }
  return s;
}

std::optional<isa::Instruction> find_instruction(const isa::Kernel& k, isa::Engine e,
                                                 std::uint32_t index) {
  const auto& stream = k.stream(e);
  if (index >= stream.size()) return std::nullopt;
  return stream[index];
}

std::string queue_name(const isa::Kernel* k, std::uint16_t queue) {
  if (k && queue < k->queues.size()) return k->queues[queue].name;
  return "queue " + std::to_string(queue);
}

std::string source_name(const isa::Kernel* k, const SignalSource& s) {
  switch (s.kind) {
    case SignalSource::Kind::engine:
      return std::string(isa::engine_name(s.engine));
    case SignalSource::Kind::dma_queue:
      return queue_name(k, s.queue);
    case SignalSource::Kind::initial:
      break;
  }
  return "unknown";
}

}  // namespace neuronsim::traces
