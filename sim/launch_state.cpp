#include "sim/launch_state.hpp"

namespace neuronsim::detail {

bool LaunchState::stuck() const {
  for (const auto& e : engines) {
    if (e->finished()) continue;
    if (e->state() != engines::EngineState::waiting_semaphore) return false;
    const isa::SemWait& w = e->blocked_on();
    if (semaphores->value(w.sem) >= w.value) return false;  // woken, about to run
  }
  return true;
}

void LaunchState::progress() {
  if (end != End::running || context->dma.outstanding() > 0) return;
  bool all_finished = true;
  for (const auto& e : engines)
    all_finished = all_finished && e->finished();
  if (all_finished)
    end = End::complete;
  else if (stuck())
    end = End::deadlock;
  else
    return;
  ended_at = sc_core::sc_time_stamp();
  ended_event.notify();
}

void LaunchState::fail(std::exception_ptr e) {
  if (end != End::running) return;
  end = End::failed;
  error = e;
  ended_at = sc_core::sc_time_stamp();
  ended_event.notify();
}

}  // namespace neuronsim::detail
