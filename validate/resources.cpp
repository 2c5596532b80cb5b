// Validation of a kernel's declarations: HBM tensors, SBUF/PSUM allocations (capacity,
// reference sections 1-2, and overlap), semaphores and DMA queues (sections 4-5).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "validate/detail.hpp"

namespace neuronsim::isa::validate_detail {

namespace {

std::string range(std::uint64_t begin, std::uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

std::string where_named(const char* kind, const std::string& name, std::size_t index) {
  if (name.empty()) return std::string(kind) + " #" + std::to_string(index);
  return std::string(kind) + " " + name;
}

// Reports each name that repeats an earlier one, naming the index of the first.
template <typename Items>
void check_unique_names(const Items& items, const char* kind, std::vector<Diagnostic>& out) {
  std::unordered_map<std::string_view, std::size_t> first;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string& name = items[i].name;
    if (name.empty()) {
      out.push_back({where_named(kind, name, i), "empty name"});
      continue;
    }
    auto [it, inserted] = first.emplace(name, i);
    if (!inserted)
      out.push_back({where_named(kind, name, i), "duplicate name (also " + std::string(kind) +
                                                     " #" + std::to_string(it->second) + ")"});
  }
}

bool valid_dtype(DType t) {
  return static_cast<int>(t) < kDTypeCount;
}

// Product of sizes, saturating instead of wrapping so that absurd shapes stay absurd.
std::uint64_t saturating_product(std::uint64_t first, const std::vector<std::uint32_t>& sizes) {
  std::uint64_t n = first;
  for (auto s : sizes) {
    if (s != 0 && n > UINT64_MAX / s) return UINT64_MAX;
    n *= s;
  }
  return n;
}

struct AllocExtent {
  std::size_t index;
  MemSpace space;
  std::uint64_t p_begin, p_end;  // partitions
  std::uint64_t b_begin, b_end;  // bytes within each partition
};

}  // namespace

void check_tensors(const Kernel& k, std::vector<Diagnostic>& out) {
  check_unique_names(k.tensors, "tensor", out);
  for (std::size_t i = 0; i < k.tensors.size(); ++i) {
    const HbmTensor& t = k.tensors[i];
    const std::string where = where_named("tensor", t.name, i);
    if (!valid_dtype(t.dtype)) {
      out.push_back({where, "unknown dtype " + std::to_string(static_cast<int>(t.dtype))});
      continue;
    }
    if (std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end())
      out.push_back({where, "shape has a zero dimension"});
    if (t.role == TensorRole::constant && t.data.size() != t.bytes())
      out.push_back({where, "constant data is " + std::to_string(t.data.size()) +
                                " bytes, its shape and dtype need " + std::to_string(t.bytes())});
  }
}

void check_allocations(const Kernel& k, const params::TargetLimits& limits,
                       std::vector<Diagnostic>& out) {
  check_unique_names(k.allocations, "allocation", out);
  std::vector<AllocExtent> extents;
  for (std::size_t i = 0; i < k.allocations.size(); ++i) {
    const Allocation& a = k.allocations[i];
    const std::string where = where_named("allocation", a.name, i);
    if (a.space != MemSpace::sbuf && a.space != MemSpace::psum) {
      out.push_back(
          {where, "allocations live in sbuf or psum, not " + std::string(mem_space_name(a.space))});
      continue;
    }
    if (!valid_dtype(a.dtype)) {
      out.push_back({where, "unknown dtype " + std::to_string(static_cast<int>(a.dtype))});
      continue;
    }
    const std::string space(mem_space_name(a.space));
    const std::uint64_t p_end = std::uint64_t{a.start_partition} + a.partitions;
    if (a.partitions == 0 || a.partitions > limits.partitions)
      out.push_back({where, "partition count " + std::to_string(a.partitions) + " is not in 1.." +
                                std::to_string(limits.partitions)});
    else if (p_end > limits.partitions)
      out.push_back({where, "partitions " + range(a.start_partition, p_end) + " exceed the " +
                                std::to_string(limits.partitions) + " partitions of " + space});
    if (a.free_shape.empty() ||
        std::find(a.free_shape.begin(), a.free_shape.end(), 0) != a.free_shape.end()) {
      out.push_back({where, "free shape is empty or has a zero dimension"});
      continue;
    }
    const std::size_t elem = dtype_size(a.dtype);
    if (a.byte_offset % elem != 0)
      out.push_back({where, "byte offset " + std::to_string(a.byte_offset) +
                                " is not aligned to the " + std::string(dtype_name(a.dtype)) +
                                " element size (" + std::to_string(elem) + " bytes)"});
    const std::uint64_t capacity = a.space == MemSpace::sbuf ? limits.sbuf_bytes_per_partition
                                                             : limits.psum_bytes_per_partition;
    const std::uint64_t bytes = saturating_product(elem, a.free_shape);
    const std::uint64_t b_end =
        bytes > UINT64_MAX - a.byte_offset ? UINT64_MAX : a.byte_offset + bytes;
    if (b_end > capacity)
      out.push_back({where, "bytes " + range(a.byte_offset, b_end) + " per partition exceed the " +
                                space + " capacity of " + std::to_string(capacity) +
                                " bytes per partition"});
    if (a.partitions > 0)
      extents.push_back({i, a.space, a.start_partition, p_end, a.byte_offset, b_end});
  }

  // Overlap: sweep the allocations of each space in order of their first byte; only those
  // starting before one ends can overlap it, so disjoint layouts cost n log n.
  std::sort(extents.begin(), extents.end(), [](const AllocExtent& x, const AllocExtent& y) {
    if (x.space != y.space) return x.space < y.space;
    if (x.b_begin != y.b_begin) return x.b_begin < y.b_begin;
    return x.index < y.index;
  });
  std::vector<std::pair<std::size_t, std::size_t>> overlaps;  // (earlier, later) declaration
  for (std::size_t i = 0; i < extents.size(); ++i) {
    const AllocExtent& x = extents[i];
    for (std::size_t j = i + 1; j < extents.size(); ++j) {
      const AllocExtent& y = extents[j];
      if (y.space != x.space || y.b_begin >= x.b_end) break;
      if (y.p_begin < x.p_end && x.p_begin < y.p_end)
        overlaps.emplace_back(std::min(x.index, y.index), std::max(x.index, y.index));
    }
  }
  std::sort(overlaps.begin(), overlaps.end());
  for (auto [first, second] : overlaps) {
    const Allocation& a = k.allocations[first];
    const Allocation& b = k.allocations[second];
    out.push_back(
        {where_named("allocation", b.name, second),
         "overlaps allocation " + (a.name.empty() ? "#" + std::to_string(first) : a.name) + " in " +
             std::string(mem_space_name(a.space)) + " (partitions " +
             range(a.start_partition, std::uint64_t{a.start_partition} + a.partitions) + " bytes " +
             range(a.byte_offset, a.byte_offset + a.bytes_per_partition()) + ")"});
  }
}

void check_semaphores(const Kernel& k, const params::TargetLimits& limits,
                      std::vector<Diagnostic>& out) {
  check_unique_names(k.semaphores, "semaphore", out);
  if (k.semaphores.size() > limits.semaphores)
    out.push_back({"semaphores", std::to_string(k.semaphores.size()) +
                                     " semaphores declared, the target has " +
                                     std::to_string(limits.semaphores)});
}

void check_queues(const Kernel& k, const params::TargetLimits& limits,
                  std::vector<Diagnostic>& out) {
  check_unique_names(k.queues, "queue", out);
  std::vector<std::uint32_t> queues_on_engine(limits.dma_engines, 0);
  for (std::size_t i = 0; i < k.queues.size(); ++i) {
    const DmaQueue& q = k.queues[i];
    const std::string where = where_named("queue", q.name, i);
    const std::uint32_t end = std::uint32_t{q.first_engine} + q.engines;
    if (q.engines == 0) {
      out.push_back(
          {where, "uses 0 DMA engines (needs 1.." + std::to_string(limits.dma_engines) + ")"});
      continue;
    }
    if (end > limits.dma_engines) {
      out.push_back({where, "DMA engines " + range(q.first_engine, end) + " exceed the target's " +
                                std::to_string(limits.dma_engines) + " DMA engines"});
      continue;
    }
    for (std::uint32_t e = q.first_engine; e < end; ++e) {
      if (++queues_on_engine[e] == limits.dma_queues_per_engine + 1) {
        out.push_back({where, "DMA engine " + std::to_string(e) + " would serve more than " +
                                  std::to_string(limits.dma_queues_per_engine) +
                                  " queues (the target's queues per DMA engine)"});
        break;
      }
    }
  }
}

}  // namespace neuronsim::isa::validate_detail
