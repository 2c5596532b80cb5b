#include "memory/port.hpp"

#include <algorithm>

namespace neuronsim::memory {

sc_core::sc_time Port::reserve(const std::vector<Port*>& ports, sc_core::sc_time earliest,
                               sc_core::sc_time duration) {
  sc_core::sc_time start = earliest;
  for (const Port* p : ports)
    start = std::max(start, p->free_at_);
  for (Port* p : ports) {
    p->free_at_ = start + duration;
    p->held_ += duration;
  }
  return start;
}

}  // namespace neuronsim::memory
