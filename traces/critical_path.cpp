#include "traces/critical_path.hpp"

#include <map>
#include <utility>

#include "traces/record_index.hpp"
#include "traces/signallers.hpp"

namespace neuronsim::traces {

std::vector<long> dma_issuers(const TraceData& t) {
  std::map<std::pair<int, std::uint32_t>, std::size_t> instruction_at;
  for (std::size_t i = 0; i < t.instructions.size(); ++i)
    instruction_at[{static_cast<int>(t.instructions[i].engine), t.instructions[i].index}] = i;
  std::vector<long> out(t.dmas.size(), -1);
  for (std::size_t d = 0; d < t.dmas.size(); ++d) {
    const auto it =
        instruction_at.find({static_cast<int>(t.dmas[d].issuer), t.dmas[d].issuer_index});
    if (it != instruction_at.end()) out[d] = static_cast<long>(it->second);
  }
  return out;
}

std::vector<CriticalStep> critical_path(const TraceData& t) {
  std::vector<CriticalStep> path;
  if (t.instructions.empty()) return path;
  // The previous instruction of each instruction's engine, by start time.
  std::vector<long> previous(t.instructions.size(), -1);
  const auto per_engine = by_start(
      t.instructions, [](const InstructionRecord& r) { return static_cast<int>(r.engine); });
  for (const auto& [engine, order] : per_engine)
    for (std::size_t j = 1; j < order.size(); ++j)
      previous[order[j]] = static_cast<long>(order[j - 1]);
  const std::vector<SignallerRef> signallers = find_signallers(t);
  const std::vector<long> issuer_of_dma = dma_issuers(t);

  std::size_t last = 0;
  for (std::size_t i = 1; i < t.instructions.size(); ++i)
    if (t.instructions[i].end_ps > t.instructions[last].end_ps) last = i;
  long at_instruction = static_cast<long>(last), at_dma = -1;
  for (std::size_t d = 0; d < t.dmas.size(); ++d)
    if (t.dmas[d].end_ps > t.instructions[last].end_ps &&
        (at_dma < 0 || t.dmas[d].end_ps > t.dmas[static_cast<std::size_t>(at_dma)].end_ps)) {
      at_dma = static_cast<long>(d);
      at_instruction = -1;
    }

  std::vector<bool> seen_instruction(t.instructions.size()), seen_dma(t.dmas.size());
  const std::size_t max_steps = t.instructions.size() + t.dmas.size();
  for (std::size_t step = 0; step < max_steps; ++step) {
    if (at_dma >= 0) {
      const auto d = static_cast<std::size_t>(at_dma);
      if (seen_dma[d]) break;
      seen_dma[d] = true;
      path.push_back({CriticalStep::Kind::dma, d});
      at_instruction = issuer_of_dma[d];
      at_dma = -1;
      if (at_instruction < 0) break;
      continue;
    }
    if (at_instruction < 0) break;
    const auto i = static_cast<std::size_t>(at_instruction);
    if (seen_instruction[i]) break;
    seen_instruction[i] = true;
    path.push_back({CriticalStep::Kind::instruction, i});
    const SignallerRef& sig = signallers[i];
    if (sig.kind == SignallerRef::Kind::instruction) {
      at_instruction = static_cast<long>(sig.index);
    } else if (sig.kind == SignallerRef::Kind::dma) {
      at_dma = static_cast<long>(sig.index);
      at_instruction = -1;
    } else {
      at_instruction = previous[i];
    }
  }
  return path;
}

}  // namespace neuronsim::traces
