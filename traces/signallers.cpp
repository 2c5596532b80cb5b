#include "traces/signallers.hpp"

#include <map>
#include <utility>

namespace neuronsim::traces {

std::vector<SignallerRef> find_signallers(const TraceData& t) {
  using Key = std::pair<int, std::uint32_t>;  // (engine, index in its stream)
  std::map<Key, std::size_t> instruction_at;
  for (std::size_t i = 0; i < t.instructions.size(); ++i)
    instruction_at[{static_cast<int>(t.instructions[i].engine), t.instructions[i].index}] = i;
  std::map<Key, std::size_t> last_part_of;  // by the issuing dma_copy
  for (std::size_t d = 0; d < t.dmas.size(); ++d) {
    const DmaRecord& r = t.dmas[d];
    const auto [it, added] =
        last_part_of.emplace(Key{static_cast<int>(r.issuer), r.issuer_index}, d);
    if (!added && r.end_ps >= t.dmas[it->second].end_ps) it->second = d;
  }

  std::vector<SignallerRef> out(t.instructions.size());
  for (std::size_t i = 0; i < t.instructions.size(); ++i) {
    const InstructionRecord& waiter = t.instructions[i];
    const SemaphoreWaitRecord* wait = longest_wait(waiter);
    if (!wait || waiter.semaphore_wait_ps == 0) continue;
    const SignalSource& s = wait->last_signaller;
    const Key key{static_cast<int>(s.engine), s.instruction};
    if (s.kind == SignalSource::Kind::engine) {
      const auto it = instruction_at.find(key);
      if (it != instruction_at.end() && it->second != i)
        out[i] = {SignallerRef::Kind::instruction, it->second};
    } else if (s.kind == SignalSource::Kind::dma_queue) {
      const auto it = last_part_of.find(key);
      if (it != last_part_of.end()) out[i] = {SignallerRef::Kind::dma, it->second};
    }
  }
  return out;
}

}  // namespace neuronsim::traces
