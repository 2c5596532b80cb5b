#pragma once
// The statistics groups of a core's DMA for one launch (base/statistics.hpp), counted by
// the DMA subsystem (engines/dma_subsystem.hpp) and its DMA engines, carried by the
// launch result.
#include <cstdint>
#include <string>

#include "base/statistics.hpp"
#include "traces/records.hpp"

namespace neuronsim::engines {

// The subsystem's transfers.
struct DmaStats {
  std::uint64_t transfers = 0;  // completed dma_copy instructions
  std::uint64_t parts = 0;      // completed per-DMA-engine parts
  std::uint64_t bytes = 0;      // bytes moved (dma_transfer_bytes)
  // By isa::MemSpace; an accumulating copy reads its destination too.
  traces::BytesBySpace read_bytes{}, write_bytes{};

  // dma_transfer_count, dma_part_count, dma_transfer_total_bytes, then
  // <space>_dma_read_bytes and <space>_dma_write_bytes for every memory space.
  void list(StatisticList& out) const;
};

// The core's HBM traffic in the launch. All of it is DMA (no engine reads HBM), so the
// DMA subsystem counts it where the launch issues it: memory::Hbm serves every core of a
// device and does not know whose launch a transaction belongs to.
struct HbmStats {
  std::uint64_t read_bytes = 0;
  std::uint64_t write_bytes = 0;

  void list(StatisticList& out) const;  // hbm_read_bytes, hbm_write_bytes
};

// One of the kernel's DMA queues.
struct DmaQueueStats {
  std::string label;          // the queue's name, or its index if it has none
  std::uint64_t busy_ps = 0;  // time it had a transfer outstanding

  void list(StatisticList& out) const;  // dma_queue_<label>_busy_ns
};

// One DMA engine.
struct DmaEngineStats {
  std::uint32_t index = 0;
  std::uint64_t busy_ps = 0;  // time it was processing a transfer

  void list(StatisticList& out) const;  // dma_engine_<index>_busy_ns
};

}  // namespace neuronsim::engines
