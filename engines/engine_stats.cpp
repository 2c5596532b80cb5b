#include "engines/engine_stats.hpp"

#include <cmath>
#include <string>

#include "engines/sim_time.hpp"

namespace neuronsim::engines {

void EngineStats::list(StatisticList& out) const {
  const std::string p = std::string(isa::engine_name(engine)) + "_engine_";
  out.add(p + "instruction_count", Unit::count, "instructions executed", time.instruction_count);
  out.add(p + "busy_ns", Unit::ns, "time executing instructions", statistic_ns(time.busy_ps));
  out.add(p + "busy_cycles", Unit::cycles, "cycles charged by the cost model", busy_cycles);
  out.add(p + "semaphore_wait_ns", Unit::ns, "time waiting for semaphores",
          statistic_ns(time.semaphore_wait_ps));
  out.add(p + "port_wait_ns", Unit::ns, "time waiting for a memory port held by another engine",
          statistic_ns(time.port_wait_ps));
  out.add(p + "dma_queue_wait_ns", Unit::ns, "time waiting for room in a full DMA queue",
          statistic_ns(time.dma_wait_ps));
  out.add(p + "idle_ns", Unit::ns, "time after the last instruction (busy + waits + idle = total)",
          statistic_ns(time.idle_ps));
  if (engine == isa::Engine::tensor)
    out.add(p + "throttled_ns", Unit::ns,
            "part of busy time the PE array's throttle added (below full rate)",
            statistic_ns(time.throttled_ps));
  const double total_ns = ps_to_ns(time.total_ps());
  out.add(p + "active_time_percent", Unit::percent, "busy time as a share of the total",
          total_ns > 0 ? std::round(ps_to_ns(time.busy_ps) / total_ns * 1e6) / 1e4 : 0.0);
}

}  // namespace neuronsim::engines
