#include "sim/stats.hpp"

#include "engines/sim_time.hpp"
#include "sim/launch_stats.hpp"
#include "sim/stats_json.hpp"

namespace neuronsim::sim {

void CoreStats::list(StatisticList& out) const {
  out.add("total_time_ns", Unit::ns,
          "simulated time from start to the last instruction or transfer",
          engines::statistic_ns(total_ps));
  out.add("neuroncore_cycle_count", Unit::cycles,
          "total time in cycles of the profiler's cycle counter (clocks.cycle_counter_ghz)",
          neuroncore_cycle_count);
  for (int i = 0; i < isa::kEngineCount; ++i) {
    const std::string name(isa::engine_name(static_cast<isa::Engine>(i)));
    out.add(name + "_clock_cycles", Unit::cycles, "total time in " + name + " engine clock cycles",
            clock_cycles[i]);
  }
}

void LaunchStats::list(StatisticList& out) const {
  if (!counted) return;
  core.list(out);
  for (const auto& e : engines)
    e.list(out);
  dma.list(out);
  hbm.list(out);
  for (const auto& q : dma_queues)
    q.list(out);
  for (const auto& e : dma_engines)
    e.list(out);
}

std::vector<Statistic> LaunchStats::all() const {
  StatisticList out;
  list(out);
  return out.all();
}

std::string LaunchStats::json_text(int indent) const {
  return stats_json(*this).dump(indent);
}

nlohmann::ordered_json stats_json(const LaunchStats& stats) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& s : stats.all()) {
    nlohmann::ordered_json value;
    std::visit([&](auto v) { value = v; }, s.value);
    out[s.name] = {{"value", value}, {"unit", unit_name(s.unit)}, {"description", s.description}};
  }
  return out;
}

}  // namespace neuronsim::sim

namespace neuronsim::detail {

LaunchStats collect_stats(const config::TargetConfig& cfg, const LaunchState& launch,
                          sc_core::sc_time total) {
  LaunchStats st;
  st.counted = true;
  const std::uint64_t total_ps = engines::to_ps(total);
  st.core.total_ps = total_ps;
  st.core.neuroncore_cycle_count = engines::to_cycles(total, cfg.cycle_counter_ghz);
  for (int i = 0; i < isa::kEngineCount; ++i) {
    st.core.clock_cycles[i] = engines::to_cycles(total, cfg.clock_ghz(static_cast<isa::Engine>(i)));
    st.engines[i] = launch.engines[i]->stats(total_ps);
  }
  const auto& dma = launch.context->dma;
  st.dma = dma.stats();
  st.hbm = dma.hbm_stats();
  st.dma_queues = dma.queue_stats();
  st.dma_engines = dma.engine_stats();
  return st;
}

}  // namespace neuronsim::detail
