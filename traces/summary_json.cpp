// Summary -> JSON (summary.hpp): reference section 7's field names, then stall attribution
// and the key_averages table.
#include "isa/instruction.hpp"

#include "base/text.hpp"
#include "traces/format.hpp"
#include "traces/summary.hpp"

namespace neuronsim::traces {

namespace {
double seconds(std::uint64_t ps) {
  return static_cast<double>(ps) * 1e-12;
}
}  // namespace

nlohmann::ordered_json summary_fields_json(const Summary& s) {
  nlohmann::ordered_json j;
  j["kernel_name"] = s.info.kernel_name;
  j["target"] = s.info.target;
  j["neff_hash"] = hex_bytes(s.info.neff_hash.data(), s.info.neff_hash.size());
  j["total_time"] = s.total_time_s();
  j["neuroncore_cycle_count"] = s.neuroncore_cycle_count;
  j["cycle_counter_ghz"] = s.info.cycle_counter_ghz;  // the clock that count is in
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const std::string name(isa::engine_name(static_cast<isa::Engine>(e)));
    const EngineTime& t = s.engines[e];
    j[name + "_engine_instruction_count"] = t.instruction_count;
    j[name + "_engine_active_time"] = seconds(t.busy_ps);
    j[name + "_engine_active_time_percent"] = s.percent_of_total(t.busy_ps);
  }
  j["dma_active_time"] = seconds(s.dma_active_ps);
  j["dma_active_time_percent"] = s.percent_of_total(s.dma_active_ps);
  j["dma_transfer_total_bytes"] = s.dma_transfer_total_bytes;
  j["dma_transfer_count"] = s.dma_transfer_count;
  static const char* spaces[] = {"hbm", "sbuf", "psum"};
  for (int m = 0; m < 3; ++m) {
    j[std::string(spaces[m]) + "_read_bytes"] = s.memory.read[m];
    j[std::string(spaces[m]) + "_write_bytes"] = s.memory.written[m];
  }
  j["model_flops"] = s.model_flops;
  j["hardware_flops"] = s.hardware_flops;
  j["mfu_estimated_percent"] = s.mfu_estimated_percent;
  return j;
}

nlohmann::ordered_json summary_json(const Summary& s) {
  nlohmann::ordered_json j = summary_fields_json(s);
  j["total_time_ps"] = s.total_ps;
  j["peak_flops_per_s"] = s.peak_flops_per_s;
  nlohmann::ordered_json stalls = nlohmann::ordered_json::object();
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const EngineTime& t = s.engines[e];
    nlohmann::ordered_json by_source = nlohmann::ordered_json::object();
    for (const auto& [who, ps] : t.semaphore_wait_by_source)
      by_source[who] = ps;
    stalls[std::string(isa::engine_name(static_cast<isa::Engine>(e)))] = {
        {"busy_ps", t.busy_ps},
        {"semaphore_wait_ps", t.semaphore_wait_ps},
        {"semaphore_wait_by_source_ps", by_source},
        {"port_wait_ps", t.port_wait_ps},
        {"dma_queue_wait_ps", t.dma_wait_ps},
        {"idle_ps", t.idle_ps},
        {"throttled_ps", t.throttled_ps}};
  }
  j["stall_attribution"] = stalls;
  nlohmann::ordered_json table = nlohmann::ordered_json::array();
  for (const OpStats& op : s.ops)
    table.push_back({{"engine", isa::engine_name(op.engine)},
                     {"opcode", isa::opcode_name(op.opcode)},
                     {"count", op.count},
                     {"total_ps", op.total_ps},
                     {"mean_ps", op.mean_ps},
                     {"min_ps", op.min_ps},
                     {"max_ps", op.max_ps},
                     {"percent", op.percent}});
  j["key_averages"] = table;
  return j;
}

}  // namespace neuronsim::traces
