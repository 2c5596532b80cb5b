#pragma once
// How one dma_copy is cut into per-DMA-engine parts, and how fast a part can go.
// Plain functions of the instruction and DmaParams (no SystemC).
#include <cstdint>
#include <vector>

#include "isa/cost_params.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::engines {

struct DmaPartPlan {
  std::uint8_t dma_engine = 0;
  std::uint8_t hw_queue = 0;
  std::uint32_t first_row = 0, rows = 0;  // partition rows of the transfer
  std::uint64_t bytes = 0;
};

// Bytes a transfer moves: the larger of what it reads and what it writes (a dtype cast
// moves a different number of bytes on each side; the wider side limits).
std::uint64_t dma_transfer_bytes(const isa::DmaCopy& copy);

// Splits by partition rows, as evenly as possible, across the queue's DMA engines
// (first_engine, first_engine+1, ... modulo the engine count); never more parts than
// rows. A kernel queue q uses FIFO q % queues_per_engine on each of its DMA engines.
std::vector<DmaPartPlan> split_transfer(const isa::DmaCopy& copy, const isa::DmaQueue& queue,
                                        const isa::DmaParams& p);

// Fraction of the engine's bandwidth a transfer reaches: linear in the contiguous bytes
// per partition row (the shorter of the source and destination runs) over
// efficient_bytes_per_row, clamped to [small_row_min_efficiency, 1] (reference section 4:
// small rows are slow; aim for 2 KiB or more per partition).
double dma_efficiency(const isa::DmaCopy& copy, const isa::DmaParams& p);

}  // namespace neuronsim::engines
