#include "engines/dma_stats.hpp"

#include "engines/sim_time.hpp"
#include "isa/access_pattern.hpp"

namespace neuronsim::engines {

void DmaStats::list(StatisticList& out) const {
  out.add("dma_transfer_count", Unit::count, "dma_copy instructions completed", transfers);
  out.add("dma_part_count", Unit::count, "per-DMA-engine parts of those transfers", parts);
  out.add("dma_transfer_total_bytes", Unit::bytes, "bytes moved by DMA", bytes);
  for (int s = 0; s < traces::kMemSpaceCount; ++s) {
    const std::string space(isa::mem_space_name(static_cast<isa::MemSpace>(s)));
    out.add(space + "_dma_read_bytes", Unit::bytes, "bytes DMA read from " + space, read_bytes[s]);
    out.add(space + "_dma_write_bytes", Unit::bytes, "bytes DMA wrote to " + space, write_bytes[s]);
  }
}

void HbmStats::list(StatisticList& out) const {
  out.add("hbm_read_bytes", Unit::bytes, "bytes read from HBM (all by DMA)", read_bytes);
  out.add("hbm_write_bytes", Unit::bytes, "bytes written to HBM (all by DMA)", write_bytes);
}

void DmaQueueStats::list(StatisticList& out) const {
  out.add("dma_queue_" + label + "_busy_ns", Unit::ns,
          "time DMA queue '" + label + "' had a transfer outstanding", statistic_ns(busy_ps));
}

void DmaEngineStats::list(StatisticList& out) const {
  const std::string n = std::to_string(index);
  out.add("dma_engine_" + n + "_busy_ns", Unit::ns,
          "time DMA engine " + n + " was processing a transfer", statistic_ns(busy_ps));
}

}  // namespace neuronsim::engines
