#include "memory/port.hpp"

#include <algorithm>

namespace neuronsim::memory {

sc_core::sc_time Port::reserve(Port* const* ports, std::size_t count, sc_core::sc_time earliest,
                               sc_core::sc_time duration) {
  sc_core::sc_time start = earliest;
  for (std::size_t i = 0; i < count; ++i)
    start = std::max(start, ports[i]->free_at_);
  for (std::size_t i = 0; i < count; ++i) {
    ports[i]->free_at_ = start + duration;
    ports[i]->held_ += duration;
  }
  return start;
}

}  // namespace neuronsim::memory
