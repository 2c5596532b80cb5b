#pragma once
// What the engines report while a kernel runs: the trace events of traces/records.hpp,
// emitted as they happen, for traces (NTFF, reference section 7) and live views. Observers
// are passive: they see events in simulated-time order and must not change the
// simulation. With no observer attached the engines build no records.
#include <vector>

#include "traces/records.hpp"

namespace neuronsim::engines {

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_instruction_start(const traces::InstructionRecord&) {}
  virtual void on_instruction_end(const traces::InstructionRecord&) {}
  virtual void on_dma_start(const traces::DmaRecord&) {}
  virtual void on_dma_end(const traces::DmaRecord&) {}
  virtual void on_semaphore_update(const traces::SemaphoreRecord&) {}
};

using Observers = std::vector<Observer*>;

}  // namespace neuronsim::engines
