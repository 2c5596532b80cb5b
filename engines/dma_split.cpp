#include "engines/dma_split.hpp"

#include <algorithm>

#include "memory/footprint.hpp"

namespace neuronsim::engines {

std::uint64_t dma_side_bytes(const isa::DmaCopy& copy, const isa::AccessPattern& side) {
  if (&side != copy.indexed()) return memory::access_bytes(side);
  return std::uint64_t{copy.index()->partitions} * side.free_elems() * isa::dtype_size(side.dtype);
}

std::uint64_t dma_transfer_bytes(const isa::DmaCopy& copy) {
  return std::max(dma_side_bytes(copy, copy.src), dma_side_bytes(copy, copy.dst));
}

std::uint32_t dma_transfer_rows(const isa::DmaCopy& copy) {
  return copy.dst_index ? copy.dst_index->partitions : copy.dst.partitions;
}

namespace {

// The side whose partitions pick the DMA engines: the on-chip one (the destination of a
// load, the source of a store); null for HBM to HBM.
const isa::AccessPattern* on_chip_side(const isa::DmaCopy& copy) {
  if (copy.dst.space != isa::MemSpace::hbm) return &copy.dst;
  if (copy.src.space != isa::MemSpace::hbm) return &copy.src;
  return nullptr;
}

}  // namespace

std::vector<DmaPartPlan> split_transfer(const isa::Kernel& kernel, const isa::DmaCopy& copy,
                                        const params::DmaParams& p) {
  std::vector<DmaPartPlan> parts;
  split_transfer(kernel, copy, p, parts);
  return parts;
}

void split_transfer(const isa::Kernel& kernel, const isa::DmaCopy& copy, const params::DmaParams& p,
                    std::vector<DmaPartPlan>& parts) {
  parts.clear();
  const isa::DmaQueue& queue = kernel.queues.at(copy.queue);
  const std::uint64_t total = dma_transfer_bytes(copy);
  const std::uint32_t rows = std::max<std::uint32_t>(1, dma_transfer_rows(copy));
  const std::uint32_t engines = std::max<std::uint32_t>(1, p.engines);
  const std::uint32_t queue_engines = std::max<std::uint8_t>(1, queue.engines);
  const std::uint8_t hw_queue =
      static_cast<std::uint8_t>(copy.queue % std::max<std::uint32_t>(1, p.queues_per_engine));
  auto add = [&](std::uint32_t engine, std::uint32_t first_row, std::uint32_t count) {
    DmaPartPlan part;
    part.dma_engine = static_cast<std::uint8_t>(engine % engines);
    part.hw_queue = hw_queue;
    part.first_row = first_row;
    part.rows = count;
    // Exact integer shares that sum to the total.
    part.bytes = total * (first_row + count) / rows - total * first_row / rows;
    parts.push_back(part);
  };

  const isa::AccessPattern* chip = on_chip_side(copy);
  if (!chip) {
    const std::uint32_t used = std::min(queue_engines, rows);
    const std::uint32_t base = rows / used, extra = rows % used;
    std::uint32_t row = 0;
    for (std::uint32_t j = 0; j < used; ++j) {
      const std::uint32_t count = base + (j < extra ? 1 : 0);
      add(queue.first_engine + j, row, count);
      row += count;
    }
    return;
  }
  const std::uint32_t per_engine = std::max<std::uint32_t>(1, p.partitions_per_engine);
  const std::uint32_t first_partition =
      kernel.allocations.at(chip->buffer).start_partition + chip->start_partition;
  // Walk whole partition groups (every row of a group is on one engine), merging
  // consecutive groups that land on the same engine into one part. `group` is the next
  // group to walk and `slot` its engine's index among the queue's engines (group %
  // queue_engines), both stepped along: no division per group.
  std::uint64_t group = first_partition / per_engine;
  std::uint32_t slot = static_cast<std::uint32_t>(group % queue_engines);
  auto group_end = [&] {  // the row after the current group; steps to the next group
    const auto end = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(rows, (group + 1) * per_engine - first_partition));
    ++group;
    if (++slot == queue_engines) slot = 0;
    return end;
  };
  std::uint32_t first = 0;
  while (first < rows) {
    const std::uint32_t engine_slot = slot;
    std::uint32_t end = group_end();
    while (end < rows && slot == engine_slot)
      end = group_end();
    add(queue.first_engine + engine_slot, first, end - first);
    first = end;
  }
}

double dma_efficiency(const isa::DmaCopy& copy, const params::DmaParams& p) {
  double copy_rate = 1.0;
  if (p.efficient_bytes_per_row > 0) {
    const std::uint64_t run =
        std::min(memory::contiguous_row_bytes(copy.src), memory::contiguous_row_bytes(copy.dst));
    const double linear = static_cast<double>(run) / p.efficient_bytes_per_row;
    copy_rate = std::clamp(linear, p.small_row_min_efficiency, 1.0);
  }
  if (!copy.transpose) return copy_rate;
  // nki-arch-v3, DMA transpose: 90% of a copy's bandwidth HBM to SBUF, 50% SBUF to SBUF
  // (validation admits no other direction); the copy is the same patterns untransposed.
  return copy_rate * (copy.src.space == isa::MemSpace::hbm ? p.transpose_hbm_efficiency
                                                           : p.transpose_sbuf_efficiency);
}

}  // namespace neuronsim::engines
