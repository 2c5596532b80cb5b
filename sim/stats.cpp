#include "sim/stats.hpp"

#include <cmath>

#include "base/error.hpp"
#include "engines/sim_time.hpp"
#include "sim/launch_stats.hpp"
#include "sim/stats_json.hpp"

namespace neuronsim::sim {

double Statistic::number() const {
  return std::visit([](auto v) { return static_cast<double>(v); }, value);
}

void Stats::add(const std::string& name, const std::string& unit, const std::string& description,
                std::variant<std::uint64_t, double> value) {
  if (find(name)) throw Error("statistic '" + name + "' registered twice");
  stats_.push_back({name, unit, description, value});
}

const Statistic* Stats::find(const std::string& name) const {
  for (const auto& s : stats_)
    if (s.name == name) return &s;
  return nullptr;
}

double Stats::number(const std::string& name) const {
  const Statistic* s = find(name);
  if (!s) throw Error("no statistic named '" + name + "'");
  return s->number();
}

std::string Stats::json_text(int indent) const {
  return stats_json(*this).dump(indent);
}

nlohmann::ordered_json stats_json(const Stats& stats) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& s : stats.all()) {
    nlohmann::ordered_json value;
    std::visit([&](auto v) { value = v; }, s.value);
    out[s.name] = {{"value", value}, {"unit", s.unit}, {"description", s.description}};
  }
  return out;
}

}  // namespace neuronsim::sim

namespace neuronsim::detail {

namespace {

// Round to the picosecond so the JSON is short and stable.
double ns(sc_core::sc_time t) {
  return std::round(engines::to_ns(t) * 1000.0) / 1000.0;
}
std::string space_name(int s) {
  return std::string(isa::mem_space_name(static_cast<isa::MemSpace>(s)));
}

}  // namespace

Stats collect_stats(const config::TargetConfig& cfg, const LaunchState& launch,
                    sc_core::sc_time total) {
  Stats st;
  st.add("total_time_ns", "ns", "simulated time from start to the last instruction or transfer",
         ns(total));
  st.add("neuroncore_cycle_count", "cycles", "total time in Tensor engine clock cycles",
         engines::to_cycles(total, cfg.tensor_ghz));
  for (int i = 0; i < isa::kEngineCount; ++i) {
    const auto kind = static_cast<isa::Engine>(i);
    const std::string name(isa::engine_name(kind));
    st.add(name + "_clock_cycles", "cycles", "total time in " + name + " engine clock cycles",
           engines::to_cycles(total, cfg.clock_ghz(kind)));
  }
  for (int i = 0; i < isa::kEngineCount; ++i) {
    const auto& e = *launch.engines[i];
    const auto& c = e.counters();
    const std::string p = std::string(isa::engine_name(e.engine())) + "_engine_";
    const sc_core::sc_time idle =
        total - c.busy - c.semaphore_wait - c.dma_queue_wait - c.port_wait;
    st.add(p + "instruction_count", "count", "instructions executed", c.instructions);
    st.add(p + "busy_ns", "ns", "time executing instructions", ns(c.busy));
    st.add(p + "busy_cycles", "cycles", "cycles charged by the cost model", c.busy_cycles);
    st.add(p + "semaphore_wait_ns", "ns", "time waiting for semaphores", ns(c.semaphore_wait));
    st.add(p + "port_wait_ns", "ns", "time waiting for a memory port held by another engine",
           ns(c.port_wait));
    st.add(p + "dma_queue_wait_ns", "ns", "time waiting for room in a full DMA queue",
           ns(c.dma_queue_wait));
    st.add(p + "idle_ns", "ns", "time after the last instruction (busy + waits + idle = total)",
           ns(idle));
    const double total_ns = engines::to_ns(total);
    st.add(p + "active_time_percent", "percent", "busy time as a share of the total",
           total_ns > 0 ? std::round(engines::to_ns(c.busy) / total_ns * 1e6) / 1e4 : 0.0);
  }
  const auto& dma = launch.context->dma;
  const auto& dc = dma.counters();
  st.add("dma_transfer_count", "count", "dma_copy instructions completed", dc.transfers);
  st.add("dma_part_count", "count", "per-DMA-engine parts of those transfers", dc.parts);
  st.add("dma_transfer_total_bytes", "bytes", "bytes moved by DMA", dc.bytes);
  for (int s = 0; s < traces::kMemSpaceCount; ++s) {
    st.add(space_name(s) + "_dma_read_bytes", "bytes", "bytes DMA read from " + space_name(s),
           dc.read_bytes[s]);
    st.add(space_name(s) + "_dma_write_bytes", "bytes", "bytes DMA wrote to " + space_name(s),
           dc.write_bytes[s]);
  }
  st.add("hbm_read_bytes", "bytes", "bytes read from HBM (all by DMA)",
         dc.read_bytes[static_cast<int>(isa::MemSpace::hbm)]);
  st.add("hbm_write_bytes", "bytes", "bytes written to HBM (all by DMA)",
         dc.write_bytes[static_cast<int>(isa::MemSpace::hbm)]);
  const auto& kernel = launch.context->kernel;
  for (std::size_t q = 0; q < kernel.queues.size(); ++q) {
    const std::string& qn = kernel.queues[q].name;
    const std::string label = qn.empty() ? std::to_string(q) : qn;
    st.add("dma_queue_" + label + "_busy_ns", "ns",
           "time DMA queue '" + label + "' had a transfer outstanding", ns(dma.queue_busy_time(q)));
  }
  for (std::size_t e = 0; e < dma.engine_count(); ++e)
    st.add("dma_engine_" + std::to_string(e) + "_busy_ns", "ns",
           "time DMA engine " + std::to_string(e) + " was processing a transfer",
           ns(dma.engine_busy_time(e)));
  return st;
}

EngineSummary summarise(const engines::Engine& e, sc_core::sc_time total) {
  const auto& c = e.counters();
  EngineSummary s;
  s.engine = e.engine();
  s.clock_ghz = e.clock_ghz();
  s.instructions = c.instructions;
  s.busy_cycles = c.busy_cycles;
  s.busy_ns = engines::to_ns(c.busy);
  s.semaphore_wait_ns = engines::to_ns(c.semaphore_wait);
  s.port_wait_ns = engines::to_ns(c.port_wait);
  s.dma_queue_wait_ns = engines::to_ns(c.dma_queue_wait);
  s.idle_ns = engines::to_ns(total - c.busy - c.semaphore_wait - c.port_wait - c.dma_queue_wait);
  return s;
}

}  // namespace neuronsim::detail
