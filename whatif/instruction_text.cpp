#include "whatif/instruction_text.hpp"

#include "traces/format.hpp"
#include "traces/source_lines.hpp"

namespace neuronsim::whatif {

std::string instruction_text(const isa::Kernel& k, isa::Engine e, std::uint32_t index) {
  std::string out = std::string(isa::engine_name(e)) + "[" + std::to_string(index) + "]";
  const isa::InstructionStream& s = k.stream(e);
  if (index >= s.size()) return out;
  out += " " + std::string(isa::opcode_name(s.at(index).opcode()));
  if (const std::string loc = traces::location_text(k, s.location(index)); !loc.empty())
    out += " at " + loc;
  else if (s.source_line(index) != 0)
    out += " at line " + std::to_string(s.source_line(index));
  return out;
}

std::string semaphore_name(const isa::Kernel& k, std::uint16_t sem) {
  return sem < k.semaphores.size() ? k.semaphores[sem].name : "#" + std::to_string(sem);
}

std::string share_text(double fraction) {
  return traces::percent(100.0 * fraction);
}

}  // namespace neuronsim::whatif
