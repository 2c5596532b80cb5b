#pragma once
// A profile's summary (reference section 7's field names): time, per-engine instruction
// counts and active time, DMA activity, bytes per memory, flops and MFU; per-engine stall
// attribution; and a key_averages-style table of instructions grouped by (engine, opcode).
// Built from records one at a time (SummaryBuilder), so a trace of any length is
// summarised while it streams from the file.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "isa/kernel.hpp"
#include "traces/engine_time.hpp"
#include "traces/ntff.hpp"
#include "traces/records.hpp"

namespace neuronsim::traces {

// One row of the key_averages table.
struct OpStats {
  isa::Engine engine = isa::Engine::tensor;
  isa::Opcode opcode = isa::Opcode::nop;
  std::uint64_t count = 0;
  std::uint64_t total_ps = 0, min_ps = 0, max_ps = 0;
  double mean_ps = 0;
  double percent = 0;  // of device_time_ps (all instructions' start -> end)
};

struct Summary {
  TraceInfo info;
  std::uint64_t total_ps = 0;
  std::uint64_t neuroncore_cycle_count = 0;  // total time at info.cycle_counter_ghz
  std::array<EngineTime, isa::kEngineCount> engines;
  std::uint64_t dma_active_ps = 0;  // union of DMA records' start -> end
  std::uint64_t dma_transfer_total_bytes = 0;
  std::uint64_t dma_transfer_count = 0;  // DMA records (one per DMA engine per dma_copy)
  ByteCounts memory;  // compute instructions' bytes plus DMA records' (not dma_copy's)
  std::uint64_t model_flops = 0;
  std::uint64_t hardware_flops = 0;
  double peak_flops_per_s = 0;
  double mfu_estimated_percent = 0;
  std::uint64_t device_time_ps = 0;  // sum over all instructions of start -> end
  std::vector<OpStats> ops;          // by total_ps, largest first

  double total_time_s() const { return static_cast<double>(total_ps) * 1e-12; }
  double percent_of_total(std::uint64_t ps) const {
    return total_ps ? 100.0 * static_cast<double>(ps) / static_cast<double>(total_ps) : 0.0;
  }
};

struct SummaryOptions {
  const isa::Kernel* kernel = nullptr;  // for model flops and names of DMA queues
  double peak_flops_per_s = 0;          // for mfu_estimated_percent; 0: not computed
};

class SummaryBuilder {
 public:
  SummaryBuilder(const TraceInfo& info, SummaryOptions options);
  void add(const InstructionRecord& r);
  void add(const DmaRecord& r);
  void add(const SemaphoreRecord&) {}
  void add(const Record& r);
  Summary finish(std::uint64_t total_ps);

 private:
  SummaryOptions options_;
  Summary s_;
  std::array<std::uint64_t, isa::kEngineCount> engine_cursor_{};  // latest end per engine
  std::vector<std::pair<std::uint64_t, std::uint64_t>> dma_intervals_;
  std::map<std::pair<int, int>, OpStats> ops_;
};

Summary summarize(const TraceData& trace, const SummaryOptions& options);
Summary summarize_ntff(const std::string& path, const SummaryOptions& options);  // streams

// Model flops of one instruction: 2*K*M*N for a matmul (the math the model asked for),
// 0 for everything else.
std::uint64_t model_flops(const isa::Instruction& instr);

// The unit convention of every JSON a command prints (view, compare; docs/profiling.md),
// stated in it as "units": the profiler's own fields keep their names and so their units.
inline constexpr const char* kJsonUnits =
    "the Neuron profiler's fields (reference section 7) keep its names and units: a time "
    "without a unit suffix (total_time, *_active_time) is in seconds; every other time "
    "names its unit: *_ps picoseconds, *_ns nanoseconds; *_percent percent; *_bytes bytes";

// The summary as JSON: the section 7 fields (times in seconds), then
// "stall_attribution" (integer ps per engine) and "key_averages".
nlohmann::ordered_json summary_json(const Summary& s);
// Only the flat section 7 fields, as in the legacy {"summary":[{...}]} view.
nlohmann::ordered_json summary_fields_json(const Summary& s);
// Terminal text: summary, stall attribution and the `top` most expensive groups.
std::string summary_text(const Summary& s, std::size_t top);

}  // namespace neuronsim::traces
