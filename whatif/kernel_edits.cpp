#include "whatif/kernel_edits.hpp"

#include <string>

#include "base/error.hpp"

namespace neuronsim::whatif {

namespace {

template <typename Keep>
isa::SemWaits kept_waits(const isa::SemWaits& waits, Keep keep) {
  isa::SemWaits kept;
  for (std::size_t w = 0; w < waits.size(); ++w)
    if (keep(w, waits[w])) kept.push_back(waits[w]);
  return kept;
}

}  // namespace

isa::Kernel without_wait(const isa::Kernel& k, isa::Engine engine, std::size_t index,
                         std::size_t wait) {
  isa::Kernel out = k;
  isa::InstructionStream& stream = out.stream(engine);
  const std::string where =
      std::string(isa::engine_name(engine)) + " instruction " + std::to_string(index);
  if (index >= stream.size()) throw Error("whatif: no " + where);
  stream.edit(index, [&](isa::Instruction& instr) {
    if (wait >= instr.waits.size())
      throw Error("whatif: " + where + " has no wait " + std::to_string(wait));
    instr.waits =
        kept_waits(instr.waits, [&](std::size_t w, const isa::SemWait&) { return w != wait; });
  });
  return out;
}

isa::Kernel without_waits_on(const isa::Kernel& k, isa::Engine engine, std::uint16_t semaphore) {
  isa::Kernel out = k;
  isa::InstructionStream& stream = out.stream(engine);
  for (std::size_t i = 0; i < stream.size(); ++i) {
    const isa::Instruction instr = stream.at(i);
    bool waits_on = false;
    for (const isa::SemWait& w : instr.waits)
      waits_on = waits_on || w.sem == semaphore;
    if (!waits_on) continue;
    stream.edit(i, [&](isa::Instruction& changed) {
      changed.waits = kept_waits(
          changed.waits, [&](std::size_t, const isa::SemWait& w) { return w.sem != semaphore; });
    });
  }
  return out;
}

isa::Kernel with_queue_engines(const isa::Kernel& k, std::uint16_t queue, std::uint8_t first_engine,
                               std::uint8_t engines) {
  if (queue >= k.queues.size()) throw Error("whatif: no DMA queue " + std::to_string(queue));
  isa::Kernel out = k;
  out.queues[queue].first_engine = first_engine;
  out.queues[queue].engines = engines;
  return out;
}

}  // namespace neuronsim::whatif
