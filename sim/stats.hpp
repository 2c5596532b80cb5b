#pragma once
// The statistics of a launch: one typed group per module that counts them (base/
// statistics.hpp), the launch result carries them. Each group names, describes and lists
// its own statistics; LaunchStats::all() lists every group in a fixed order, and the JSON
// (json_text() and sim/stats_json.hpp), the Python module's `stats` and the CLI's tables are
// made from the groups. Part of the public API (<neuronsim/statistics.hpp>), so plain
// types only: the JSON document itself is sim/stats_json.hpp's, for the program's own
// writers.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/statistics.hpp"
#include "engines/dma_stats.hpp"
#include "engines/engine_stats.hpp"
#include "isa/engine.hpp"

namespace neuronsim::sim {

// The core's own: the launch's time, in each clock.
struct CoreStats {
  std::uint64_t total_ps = 0;                // from start to the last instruction or transfer
  std::uint64_t neuroncore_cycle_count = 0;  // at the profiler's cycle counter clock
  std::array<std::uint64_t, isa::kEngineCount> clock_cycles{};  // in each engine's clock

  // total_time_ns, neuroncore_cycle_count, <engine>_clock_cycles for every engine.
  void list(StatisticList& out) const;
};

struct LaunchStats {
  // False when the launch failed before it began (its kernel was rejected): then no group
  // counted anything and all() is empty.
  bool counted = false;
  CoreStats core;
  std::array<engines::EngineStats, isa::kEngineCount> engines{};  // by isa::Engine
  engines::DmaStats dma;
  engines::HbmStats hbm;
  std::vector<engines::DmaQueueStats> dma_queues;    // the kernel's, in its order
  std::vector<engines::DmaEngineStats> dma_engines;  // the core's

  // Every statistic of every group, in this order: core, engines, dma, hbm, dma_queues,
  // dma_engines (nothing when not `counted`).
  void list(StatisticList& out) const;
  std::vector<Statistic> all() const;  // list()'s, as a vector
  // {"<name>": {"value": v, "unit": u, "description": d}, ...} in all()'s order, as JSON
  // text (indent < 0: on one line; else that many spaces per level).
  std::string json_text(int indent = -1) const;
};

}  // namespace neuronsim::sim
