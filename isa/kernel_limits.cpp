#include "isa/kernel_limits.hpp"

#include "base/error.hpp"
#include "base/limits.hpp"

namespace neuronsim {

void check_kernel_resources(const isa::Kernel& k, const std::string& source,
                            std::uint64_t hbm_capacity_bytes) {
  check_limit(Limit::instructions, k.instruction_count(),
              source + ": kernel '" + k.name + "': instructions");
  constexpr std::uint64_t kPlacementAlign = 4096;  // sim/neuron_core.cpp's tensor alignment
  std::uint64_t total = 0, placed = 0;
  for (const auto& t : k.tensors) {
    const std::uint64_t bytes = checked_tensor_bytes(t.shape, isa::dtype_size(t.dtype),
                                                     source + ": tensor '" + t.name + "'");
    total = saturating_add(total, bytes);
    placed =
        saturating_add(placed, (bytes + kPlacementAlign - 1) / kPlacementAlign * kPlacementAlign);
  }
  check_limit(Limit::kernel_tensor_bytes, total,
              source + ": kernel '" + k.name + "': its HBM tensors together");
  if (hbm_capacity_bytes != 0 && placed > hbm_capacity_bytes)
    throw Error(source + ": kernel '" + k.name + "' declares " + std::to_string(placed) +
                " bytes of HBM tensors (placed on 4 KiB boundaries), more than the target's HBM "
                "capacity hbm.capacity_bytes = " +
                std::to_string(hbm_capacity_bytes));
}

}  // namespace neuronsim
