#pragma once
// How one dma_copy is cut into per-DMA-engine parts, and how fast a part can go.
// Plain functions of the instruction and DmaParams (no SystemC).
#include <cstdint>
#include <vector>

#include "isa/kernel.hpp"
#include "params/dma_params.hpp"

namespace neuronsim::engines {

struct DmaPartPlan {
  std::uint8_t dma_engine = 0;
  std::uint8_t hw_queue = 0;
  std::uint32_t first_row = 0, rows = 0;  // partition rows of the transfer
  std::uint64_t bytes = 0;
};

// Bytes one side of a transfer (copy.src or copy.dst) moves: its pattern's, except the
// indexed side of a gather or scatter, which moves one of its rows per index.
std::uint64_t dma_side_bytes(const isa::DmaCopy& copy, const isa::AccessPattern& side);
// Bytes a transfer moves: the larger of what it reads and what it writes (a dtype cast
// moves a different number of bytes on each side; the wider side limits).
std::uint64_t dma_transfer_bytes(const isa::DmaCopy& copy);
// Partition rows of a transfer: its destination's, or a scatter's index count.
std::uint32_t dma_transfer_rows(const isa::DmaCopy& copy);

// Cuts a transfer into per-DMA-engine parts the way the hardware maps partitions to
// engines (nki/about/nki-dma-overview.rst, "Performance Considerations"; trainium2_arch.rst,
// DMA transpose): DMA engine e serves the partitions_per_engine consecutive SBUF
// partitions from e x partitions_per_engine (128 / 16 = 8), so a transfer's parts follow
// its SBUF side's partitions: [4, 4096] rows on partitions 0-3 are one part on engine 0,
// [128, F] is 16 parts of 8 rows. A queue restricted to `engines` engines from
// `first_engine` folds the engine groups onto those (group g on first_engine + g % engines).
// A transfer with no SBUF or PSUM side (HBM to HBM) is split by rows, as evenly as
// possible, across the queue's engines. A part is a run of consecutive rows on one engine;
// never more parts than rows. Kernel queue q uses FIFO q % queues_per_engine on each DMA engine (a
// queue ID is the same on every engine, nki-dma-overview.rst "DMA Queues").
std::vector<DmaPartPlan> split_transfer(const isa::Kernel& kernel, const isa::DmaCopy& copy,
                                        const params::DmaParams& p);
// The same, into `parts` (replacing what it held, reusing its capacity: no allocation per
// transfer once it has grown).
void split_transfer(const isa::Kernel& kernel, const isa::DmaCopy& copy, const params::DmaParams& p,
                    std::vector<DmaPartPlan>& parts);

// Fraction of the engine's bandwidth a transfer reaches: linear in the contiguous bytes
// per partition row (the shorter of the source and destination runs) over
// efficient_bytes_per_row, clamped to [small_row_min_efficiency, 1] (reference section 4:
// small rows are slow; aim for 2 KiB or more per partition). A transposing copy reaches
// that times transpose_hbm_efficiency (from HBM) or transpose_sbuf_efficiency (from SBUF):
// its rows are read and written as a copy's, and the engine transposes them at a fraction
// of the copy's rate (nki-arch-v3, DMA transpose). A gather or scatter is priced as
// descriptors of one row each: its indexed side's runs never span two rows (each index
// names one), which is what contiguous_row_bytes measures of a pattern's row already.
double dma_efficiency(const isa::DmaCopy& copy, const params::DmaParams& p);

}  // namespace neuronsim::engines
