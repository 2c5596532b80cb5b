#pragma once
// Watches the memory regions of the Tensor engine's loaded stationary for writes by any
// engine or DMA transfer: a matmul may reuse a loaded stationary only if nothing wrote it
// since the load. A plain stationary is one region; an MX stationary is two, its data and
// the scale tile it is dequantised with (NKI nc_matmul_mx).
#include <array>
#include <cstddef>
#include <vector>

#include "memory/footprint.hpp"

namespace neuronsim::engines {

class WriteWatch {
 public:
  static constexpr std::size_t kMaxRegions = 2;
  void watch(const memory::Footprint& region) {
    regions_[0] = region;
    count_ = 1;
    written_ = false;
  }
  void watch(const memory::Footprint& region, const memory::Footprint& second) {
    watch(region);
    regions_[1] = second;
    count_ = 2;
  }
  void note(const memory::Footprint& write) {
    if (!watching()) return;
    for (std::size_t i = 0; i < count_; ++i)
      if (memory::overlaps(regions_[i], write)) written_ = true;
  }
  void note(const std::vector<memory::Footprint>& writes) {
    for (const auto& w : writes)
      note(w);
  }
  bool written() const { return written_; }
  // A region is watched and not yet written: only then do writes need noting.
  bool watching() const { return count_ > 0 && !written_; }

 private:
  std::array<memory::Footprint, kMaxRegions> regions_{};
  std::size_t count_ = 0;
  bool written_ = false;
};

}  // namespace neuronsim::engines
