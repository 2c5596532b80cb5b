// Summary -> terminal text (summary.hpp): aligned columns, human units.
#include "isa/instruction.hpp"

#include "base/text.hpp"
#include "traces/format.hpp"
#include "traces/summary.hpp"

namespace neuronsim::traces {

namespace {

std::string with_percent(const Summary& s, std::uint64_t ps) {
  return human_time(ps) + " (" + percent(s.percent_of_total(ps)) + ")";
}

std::string overview(const Summary& s) {
  std::string out;
  out += "kernel " + s.info.kernel_name + " on " + s.info.target + ", NEFF hash " +
         hex_bytes(s.info.neff_hash.data(), 8) + "...\n";
  out += "total_time " + human_time(s.total_ps) + " = " + std::to_string(s.neuroncore_cycle_count) +
         " neuroncore cycles " + cycle_counter_text(s.info.cycle_counter_ghz) + "\n\n";

  TextTable engines({"engine", "instructions", "active_time", "active %"});
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const EngineTime& t = s.engines[e];
    engines.row({std::string(isa::engine_name(static_cast<isa::Engine>(e))),
                 std::to_string(t.instruction_count), human_time(t.busy_ps),
                 percent(s.percent_of_total(t.busy_ps))});
  }
  engines.row({"dma", std::to_string(s.dma_transfer_count) + " transfers",
               human_time(s.dma_active_ps), percent(s.percent_of_total(s.dma_active_ps))});
  out += engines.str();

  out += "\nDMA moved " + human_bytes(s.dma_transfer_total_bytes) + " in " +
         std::to_string(s.dma_transfer_count) + " transfers\n";
  TextTable memory({"memory", "read", "written"});
  static const char* spaces[] = {"hbm", "sbuf", "psum"};
  for (int m = 0; m < 3; ++m)
    memory.row({spaces[m], human_bytes(s.memory.read[m]), human_bytes(s.memory.written[m])});
  out += memory.str();

  out += "\nflops: model " + human_count(static_cast<double>(s.model_flops)) + ", hardware " +
         human_count(static_cast<double>(s.hardware_flops));
  if (s.peak_flops_per_s > 0)
    out += ", MFU " + fixed(s.mfu_estimated_percent, 2) + "% of " +
           human_count(s.peak_flops_per_s) + "FLOP/s peak";
  return out + "\n";
}

std::string stalls(const Summary& s) {
  std::string out = "\nStall attribution (busy + waiting + idle = total_time)\n";
  TextTable t({"engine", "busy", "semaphore wait", "port wait", "DMA queue wait", "idle"});
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const EngineTime& et = s.engines[e];
    t.row({std::string(isa::engine_name(static_cast<isa::Engine>(e))), with_percent(s, et.busy_ps),
           with_percent(s, et.semaphore_wait_ps), with_percent(s, et.port_wait_ps),
           with_percent(s, et.dma_wait_ps), with_percent(s, et.idle_ps)});
  }
  out += t.str();
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const EngineTime& et = s.engines[e];
    if (et.throttled_ps == 0) continue;
    out += "  " + std::string(isa::engine_name(static_cast<isa::Engine>(e))) + " busy includes " +
           with_percent(s, et.throttled_ps) + " of throttle (the PE array held below full rate)\n";
  }
  bool any = false;
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const EngineTime& et = s.engines[e];
    if (et.semaphore_wait_by_source.empty()) continue;
    if (!any) out += "\nSemaphore waits by whom they waited for\n";
    any = true;
    out += "  " + std::string(isa::engine_name(static_cast<isa::Engine>(e))) + " waited on";
    std::string sep = " ";
    for (const auto& [who, ps] : et.semaphore_wait_by_source) {
      out += sep + who + " " + human_time(ps);
      sep = ", ";
    }
    out += "\n";
  }
  return out;
}

std::string top_table(const Summary& s, std::size_t top) {
  std::string out = "\nTop instructions by device time (of " + human_time(s.device_time_ps) +
                    " in all instructions)\n";
  TextTable t({"engine", "opcode", "count", "total", "mean", "min", "max", "% device"}, 2);
  for (std::size_t i = 0; i < s.ops.size() && i < top; ++i) {
    const OpStats& op = s.ops[i];
    t.row({std::string(isa::engine_name(op.engine)), std::string(isa::opcode_name(op.opcode)),
           std::to_string(op.count), human_time(op.total_ps),
           human_time(static_cast<std::uint64_t>(op.mean_ps + 0.5)), human_time(op.min_ps),
           human_time(op.max_ps), percent(op.percent)});
  }
  return out + t.str();
}

}  // namespace

std::string summary_text(const Summary& s, std::size_t top) {
  return overview(s) + stalls(s) + top_table(s, top);
}

}  // namespace neuronsim::traces
