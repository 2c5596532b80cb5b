#include "engines/dma_split.hpp"

#include <algorithm>

#include "memory/footprint.hpp"

namespace neuronsim::engines {

std::uint64_t dma_transfer_bytes(const isa::DmaCopy& copy) {
  return std::max(memory::access_bytes(copy.src), memory::access_bytes(copy.dst));
}

std::vector<DmaPartPlan> split_transfer(const isa::DmaCopy& copy, const isa::DmaQueue& queue,
                                        const isa::DmaParams& p) {
  std::vector<DmaPartPlan> parts;
  const std::uint64_t total = dma_transfer_bytes(copy);
  const std::uint32_t rows = std::max<std::uint32_t>(1, copy.dst.partitions);
  const std::uint32_t engines = std::max<std::uint32_t>(1, p.engines);
  const std::uint32_t used =
      std::min<std::uint32_t>(std::max<std::uint8_t>(1, queue.engines), rows);
  const std::uint32_t base = rows / used, extra = rows % used;
  const std::uint32_t queues = std::max<std::uint32_t>(1, p.queues_per_engine);
  std::uint32_t row = 0;
  for (std::uint32_t j = 0; j < used; ++j) {
    DmaPartPlan part;
    part.dma_engine = static_cast<std::uint8_t>((queue.first_engine + j) % engines);
    part.hw_queue = static_cast<std::uint8_t>(copy.queue % queues);
    part.first_row = row;
    part.rows = base + (j < extra ? 1 : 0);
    // Exact integer shares that sum to the total.
    part.bytes = total * (row + part.rows) / rows - total * row / rows;
    row += part.rows;
    parts.push_back(part);
  }
  return parts;
}

double dma_efficiency(const isa::DmaCopy& copy, const isa::DmaParams& p) {
  if (p.efficient_bytes_per_row == 0) return 1.0;
  const std::uint64_t run =
      std::min(memory::contiguous_row_bytes(copy.src), memory::contiguous_row_bytes(copy.dst));
  const double linear = static_cast<double>(run) / p.efficient_bytes_per_row;
  return std::clamp(linear, p.small_row_min_efficiency, 1.0);
}

}  // namespace neuronsim::engines
