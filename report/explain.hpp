#pragma once
// The "explain" section: numbers computed from a run's traces that say why it took the
// time it took (HBM traffic in round trips, launches and the host's dispatch gap, engine
// idle time, the busiest engine, what bounded it), and sentences comparing runs.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "report/run.hpp"

namespace neuronsim::report {

enum class Bound : std::uint8_t {
  host,     // the device waited for the host longer than it ran
  dma,      // DMA active time >= the busiest engine's busy time
  compute,  // the busiest engine was busy longer than DMA moved data
};

struct RunFacts {
  std::uint64_t total_ps = 0;         // end to end
  std::uint64_t device_ps = 0;        // sum of the launches' device time
  std::uint64_t dispatch_gap_ps = 0;  // host time not overlapped by any device execution
  std::size_t launches = 0;
  std::uint64_t hbm_bytes = 0;  // read + written, all launches
  double round_trips = 0;       // hbm_bytes / the program's input+output bytes (0: unknown)
  std::uint64_t dma_active_ps = 0;
  isa::Engine busiest = isa::Engine::tensor;
  std::uint64_t busiest_busy_ps = 0;
  // Per engine: idle while the device ran, plus the dispatch gap.
  std::array<std::uint64_t, isa::kEngineCount> idle_ps{};
  double mfu_percent = 0;  // model flops / (end-to-end time x peak); 0 without a peak
  Bound bound = Bound::compute;
};

RunFacts run_facts(const Run& run);
std::string bound_text(const RunFacts& f);  // "DMA/HBM-bound", "compute-bound (vector)", ...

// Why this run took its time, one sentence each.
std::vector<std::string> explain_run(const Run& run, const RunFacts& f);
// Why `run` differs from the baseline, one sentence each, the largest time first.
std::vector<std::string> explain_against(const Run& base, const RunFacts& bf, const Run& run,
                                         const RunFacts& f);

}  // namespace neuronsim::report
