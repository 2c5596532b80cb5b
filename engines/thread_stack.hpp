#pragma once
// Stack size of the engines' and DMA engines' SystemC threads. isa::execute and the
// observers (a trace writer, say) run on these stacks, so they get more than SystemC's
// default; the memory is only reserved, pages are committed as they are touched.
#include <cstddef>

namespace neuronsim::engines {

inline constexpr std::size_t kThreadStackBytes = std::size_t{2} << 20;  // 2 MiB

}  // namespace neuronsim::engines
