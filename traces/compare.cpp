#include "traces/compare.hpp"

#include "base/error.hpp"
#include "traces/format.hpp"

namespace neuronsim::traces {

double speedup(const Summary& baseline, const Summary& s) {
  return s.total_ps ? static_cast<double>(baseline.total_ps) / static_cast<double>(s.total_ps)
                    : 0.0;
}

namespace {

std::uint64_t hbm_bytes(const Summary& s) {
  const int hbm = static_cast<int>(isa::MemSpace::hbm);
  return s.memory.read[hbm] + s.memory.written[hbm];
}

void require_runs(const std::vector<LabelledSummary>& runs) {
  if (runs.empty()) throw Error("compare: no profiles given");
}

}  // namespace

std::string compare_text(const std::vector<LabelledSummary>& runs) {
  require_runs(runs);
  std::vector<std::string> header = {"metric"};
  for (const auto& r : runs)
    header.push_back(r.label);
  TextTable t(header);
  const Summary& base = runs.front().summary;
  auto row = [&](const std::string& name, auto cell) {
    std::vector<std::string> cells = {name};
    for (const auto& r : runs)
      cells.push_back(cell(r.summary));
    t.row(cells);
  };
  row("kernel", [](const Summary& s) { return s.info.kernel_name; });
  row("total_time", [](const Summary& s) { return human_time(s.total_ps); });
  row("speedup vs first", [&](const Summary& s) { return fixed(speedup(base, s), 3) + "x"; });
  row("neuroncore_cycle_count", [](const Summary& s) {
    return std::to_string(s.neuroncore_cycle_count) + " " +
           cycle_counter_text(s.info.cycle_counter_ghz);
  });
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const std::string name(isa::engine_name(static_cast<isa::Engine>(e)));
    row(name + " active", [e](const Summary& s) {
      return human_time(s.engines[e].busy_ps) + " (" +
             percent(s.percent_of_total(s.engines[e].busy_ps)) + ")";
    });
    row(name + " instructions",
        [e](const Summary& s) { return std::to_string(s.engines[e].instruction_count); });
  }
  row("dma active", [](const Summary& s) {
    return human_time(s.dma_active_ps) + " (" + percent(s.percent_of_total(s.dma_active_ps)) + ")";
  });
  row("dma transfers", [](const Summary& s) { return std::to_string(s.dma_transfer_count); });
  row("dma bytes", [](const Summary& s) { return human_bytes(s.dma_transfer_total_bytes); });
  row("hbm bytes (read+write)", [](const Summary& s) { return human_bytes(hbm_bytes(s)); });
  return t.str();
}

nlohmann::ordered_json compare_json(const std::vector<LabelledSummary>& runs) {
  require_runs(runs);
  const Summary& base = runs.front().summary;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& r : runs) {
    const Summary& s = r.summary;
    nlohmann::ordered_json j;
    j["label"] = r.label;
    j["kernel_name"] = s.info.kernel_name;
    j["total_time"] = s.total_time_s();
    j["total_time_ps"] = s.total_ps;
    j["speedup"] = speedup(base, s);
    j["neuroncore_cycle_count"] = s.neuroncore_cycle_count;
    j["cycle_counter_ghz"] = s.info.cycle_counter_ghz;
    for (int e = 0; e < isa::kEngineCount; ++e) {
      const std::string name(isa::engine_name(static_cast<isa::Engine>(e)));
      j[name + "_engine_active_time_ps"] = s.engines[e].busy_ps;
      j[name + "_engine_instruction_count"] = s.engines[e].instruction_count;
    }
    j["dma_active_time_ps"] = s.dma_active_ps;
    j["dma_transfer_count"] = s.dma_transfer_count;
    j["dma_transfer_total_bytes"] = s.dma_transfer_total_bytes;
    j["hbm_read_bytes"] = s.memory.read[0];
    j["hbm_write_bytes"] = s.memory.written[0];
    list.push_back(j);
  }
  return {{"baseline", runs.front().label}, {"runs", list}};
}

}  // namespace neuronsim::traces
