#include "engines/semaphores.hpp"

#include <limits>
#include <string>

#include "base/error.hpp"
#include "engines/sim_time.hpp"

namespace neuronsim::engines {

Semaphores::Semaphores(const std::vector<isa::Semaphore>& sems, const Observers& observers,
                       sc_core::sc_time origin)
    : observers_(observers), origin_(origin) {
  for (const auto& s : sems) {
    values_.push_back(s.initial);
    names_.push_back(s.name);
    sources_.emplace_back();
    changed_.push_back(std::make_unique<sc_core::sc_event>());
  }
}

bool Semaphores::satisfied(const isa::SemWaits& waits) const {
  for (const auto& w : waits)
    if (values_.at(w.sem) < w.value) return false;
  return true;
}

void Semaphores::wait_until(std::uint16_t sem, std::uint32_t wanted) {
  while (values_.at(sem) < wanted)
    sc_core::wait(*changed_[sem]);
}

void Semaphores::apply(const isa::SemSignal& signal, const traces::SignalSource& source) {
  auto& v = values_.at(signal.sem);
  if (signal.kind != isa::SemUpdate::set &&
      signal.value > std::numeric_limits<std::uint32_t>::max() - v) {
    std::string by = "its initial value";
    if (source.kind == traces::SignalSource::Kind::engine)
      by = std::string(isa::engine_name(source.engine)) + "[" + std::to_string(source.instruction) +
           "]";
    else if (source.kind == traces::SignalSource::Kind::dma_queue)
      by = "the DMA transfer of " + std::string(isa::engine_name(source.engine)) + "[" +
           std::to_string(source.instruction) + "]";
    throw Error("semaphore '" + names_.at(signal.sem) + "' would pass 4294967295: " + by +
                " adds " + std::to_string(signal.value) + " to " + std::to_string(v) +
                " (semaphores are 32-bit counters)");
  }
  v = signal.kind == isa::SemUpdate::set ? signal.value : v + signal.value;
  sources_[signal.sem] = source;
  changed_[signal.sem]->notify(sc_core::SC_ZERO_TIME);
  if (observers_.empty()) return;
  traces::SemaphoreRecord r;
  r.time_ps = to_ps(sc_core::sc_time_stamp() - origin_);
  r.semaphore = signal.sem;
  r.value = v;
  r.source = source;
  for (auto* o : observers_)
    o->on_semaphore_update(r);
}

}  // namespace neuronsim::engines
