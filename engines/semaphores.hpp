#pragma once
// The core's semaphores (reference section 5): counters that instructions wait on
// (value >= target) and update when they finish; DMA completion updates them too.
// A waiting SystemC thread sleeps on the semaphore's event, so nothing polls.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "engines/observer.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::engines {

class Semaphores {
 public:
  // `origin`: the launch's start; record times are relative to it.
  Semaphores(const std::vector<isa::Semaphore>& sems, const Observers& observers,
             sc_core::sc_time origin);

  std::size_t size() const { return values_.size(); }
  std::uint32_t value(std::uint16_t sem) const { return values_.at(sem); }
  const traces::SignalSource& last_source(std::uint16_t sem) const { return sources_.at(sem); }
  bool satisfied(const isa::SemWaits& waits) const;

  // Blocks the calling SC_THREAD until the semaphore's value is >= wanted.
  void wait_until(std::uint16_t sem, std::uint32_t wanted);
  // Applies an increment or set and wakes its waiters (in the next delta cycle). An
  // increment past 2^32 - 1 throws neuronsim::Error naming the semaphore and the signaller:
  // a 32-bit counter would wrap and release or starve its waiters silently.
  void apply(const isa::SemSignal& signal, const traces::SignalSource& source);

 private:
  std::vector<std::uint32_t> values_;
  std::vector<std::string> names_;
  std::vector<traces::SignalSource> sources_;
  std::vector<std::unique_ptr<sc_core::sc_event>> changed_;
  const Observers& observers_;
  sc_core::sc_time origin_;
};

}  // namespace neuronsim::engines
