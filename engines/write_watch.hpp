#pragma once
// Watches one memory region for writes by any engine or DMA transfer. The Tensor engine
// uses it to know whether the stationary tile it holds in the array is still what SBUF
// holds: a matmul may reuse a loaded stationary only if nothing wrote it since the load.
#include <optional>
#include <vector>

#include "memory/footprint.hpp"

namespace neuronsim::engines {

class WriteWatch {
 public:
  void watch(const memory::Footprint& region) {
    region_ = region;
    written_ = false;
  }
  void note(const memory::Footprint& write) {
    if (region_ && !written_ && memory::overlaps(*region_, write)) written_ = true;
  }
  void note(const std::vector<memory::Footprint>& writes) {
    for (const auto& w : writes)
      note(w);
  }
  bool written() const { return written_; }
  // A region is watched and not yet written: only then do writes need noting.
  bool watching() const { return region_ && !written_; }

 private:
  std::optional<memory::Footprint> region_;
  bool written_ = false;
};

}  // namespace neuronsim::engines
