#pragma once
// Statistics of a finished launch (docs/embedding.md, "Statistics"): typed groups, one per
// module that counts them (the core, each engine, the DMA subsystem, the HBM traffic, each
// DMA queue and DMA engine), read as plain members (`result.stats.dma.transfers`,
// `result.stats.engines[i].time.busy_ps`). Each group also lists its statistics with
// name, unit and description (LaunchStats::all(); docs/simulation.md lists them), and
// LaunchStats::json_text() writes them as JSON.
#include "sim/stats.hpp"

namespace neuronsim {

using engines::DmaEngineStats;
using engines::DmaQueueStats;
using engines::DmaStats;
using engines::EngineStats;
using engines::HbmStats;
using sim::CoreStats;
using sim::LaunchStats;
using traces::EngineTime;

}  // namespace neuronsim
