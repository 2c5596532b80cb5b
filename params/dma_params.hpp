#pragma once
// The numbers the DMA model (engines/dma_*) and the HBM read. Filled from the target
// config (config/targets/*.json), which documents each with its unit and source; every
// field starts at zero here.
#include <cstdint>

namespace neuronsim::params {

// DMA and HBM (reference sections 1 and 4). Bandwidths in bytes per ns, times in ns.
struct DmaParams {
  std::uint32_t engines = 0;                  // DMA engines per NeuronCore
  std::uint32_t queues_per_engine = 0;        // FIFO queues per DMA engine
  double engine_bytes_per_ns = 0;             // achievable bandwidth of one DMA engine
  double hbm_bytes_per_ns = 0;                // HBM bandwidth shared by all DMA traffic
  double fixed_latency_ns = 0;                // a part's latency to its first byte, from
                                              // its descriptors' arrival (not occupancy)
  double descriptor_ns = 0;                   // hardware DGE: descriptors of one dma_copy
  std::uint32_t dge_instances = 0;            // hardware DGE blocks (0: none, v2)
  double swdge_descriptor_ns = 0;             // software DGE: GpSimd time per dma_copy
  std::uint32_t partitions_per_engine = 0;    // SBUF partitions per DMA engine (derived:
                                              // partitions / engines)
  std::uint32_t efficient_bytes_per_row = 0;  // rows this long or longer reach full rate
  double small_row_min_efficiency = 0;        // efficiency floor for tiny rows (0..1]
  // A transposing dma_copy's rate as a fraction of the same copy's (0..1], by source.
  double transpose_hbm_efficiency = 0;   // HBM to SBUF
  double transpose_sbuf_efficiency = 0;  // SBUF to SBUF
  bool strict_priority = false;          // queues by strict priority (v4) not RR
  std::uint32_t queue_depth = 0;         // outstanding dma_copy per queue before issue stalls
};

}  // namespace neuronsim::params
