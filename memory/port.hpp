#pragma once
// A memory port (reference section 2): a resource an engine holds for the whole duration
// of an instruction that touches its memory. A port is granted by reservation in request
// order: the requester gets the earliest time every port it needs is free and holds them
// all from then for the instruction's duration. Reservation keeps arbitration
// deterministic and event-free (no polling); requests are served first come, first served.
#include <cstddef>
#include <string>
#include <vector>

#include <systemc>

namespace neuronsim::memory {

class Port {
 public:
  explicit Port(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  sc_core::sc_time free_at() const { return free_at_; }
  sc_core::sc_time held_time() const { return held_; }  // total time reserved

  // Holds every port in `ports` (no duplicates) for `duration`, starting at the
  // earliest time >= `earliest` when all are free. Returns that start time.
  static sc_core::sc_time reserve(Port* const* ports, std::size_t count, sc_core::sc_time earliest,
                                  sc_core::sc_time duration);
  static sc_core::sc_time reserve(const std::vector<Port*>& ports, sc_core::sc_time earliest,
                                  sc_core::sc_time duration) {
    return reserve(ports.data(), ports.size(), earliest, duration);
  }
  // Free from time zero with nothing held: a new launch (a failed one may leave a
  // reservation that ends after it).
  void reset() {
    free_at_ = sc_core::SC_ZERO_TIME;
    held_ = sc_core::SC_ZERO_TIME;
  }

 private:
  std::string name_;
  sc_core::sc_time free_at_ = sc_core::SC_ZERO_TIME;
  sc_core::sc_time held_ = sc_core::SC_ZERO_TIME;
};

}  // namespace neuronsim::memory
