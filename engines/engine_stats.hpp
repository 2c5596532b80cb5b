#pragma once
// The statistics group of one compute engine for one launch (base/statistics.hpp): the
// Engine counts them while it runs (engines/engine.hpp), the core fills the idle time once
// the launch's total is known, and the launch result carries them.
#include <cstdint>

#include "base/statistics.hpp"
#include "isa/engine.hpp"
#include "traces/engine_time.hpp"

namespace neuronsim::engines {

struct EngineStats {
  isa::Engine engine = isa::Engine::tensor;
  double clock_ghz = 0;
  std::uint64_t busy_cycles = 0;  // charged by the cost model, in this engine's clock
  traces::EngineTime time;        // idle: after the engine's last instruction

  // "<engine>_engine_instruction_count", ..._busy_ns, ..._busy_cycles,
  // ..._semaphore_wait_ns, ..._port_wait_ns, ..._dma_queue_wait_ns, ..._idle_ns,
  // ..._active_time_percent (of the total: busy + waits + idle); the Tensor engine's also
  // tensor_engine_throttled_ns (part of busy).
  void list(StatisticList& out) const;
};

}  // namespace neuronsim::engines
