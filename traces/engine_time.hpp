#pragma once
// Where one engine's time went: the one type for it, which the engines count in while they
// run (engines/engine_stats.hpp), a launch's result carries, the what-if bench compares and
// a trace's summary rebuilds from the records (traces/summary.hpp).
// busy + semaphore_wait + port_wait + dma_wait + idle == the run's total, exactly, where
// idle is the time after the engine finished its stream.
#include <cstdint>
#include <map>
#include <string>

namespace neuronsim::traces {

struct EngineTime {
  std::uint64_t instruction_count = 0;  // completed
  std::uint64_t busy_ps = 0;            // executing instructions (start -> end)
  std::uint64_t semaphore_wait_ps = 0;
  std::uint64_t port_wait_ps = 0;  // for a memory port held by another engine
  std::uint64_t dma_wait_ps = 0;   // for room in a full DMA queue
  std::uint64_t idle_ps = 0;       // the rest of the total
  // Part of busy_ps: what the Tensor engine's throttle added (not a part of the total).
  std::uint64_t throttled_ps = 0;
  // Semaphore wait by whom it waited for (an engine name, a DMA queue name, "unknown"):
  // known only from a trace's records, so filled by a trace's summary alone (empty in
  // the engines' own counts). A summary's waits are the records' wait fields, capped to
  // the time between the engine being ready and the instruction starting
  // (docs/profiling.md).
  std::map<std::string, std::uint64_t> semaphore_wait_by_source;

  std::uint64_t total_ps() const {
    return busy_ps + semaphore_wait_ps + port_wait_ps + dma_wait_ps + idle_ps;
  }
};

}  // namespace neuronsim::traces
