#include "sequence/host_driver.hpp"

#include <algorithm>

#include "engines/sim_time.hpp"

namespace neuronsim::sequence {

HostDriver::HostDriver(sc_core::sc_module_name name, NeuronCore& core,
                       const config::HostParams& host, std::vector<LaunchRequest> requests)
    : sc_module(name), core_(core), host_(host), requests_(std::move(requests)) {
  SC_THREAD(run);
}

void HostDriver::run() {
  using engines::from_ns;
  const std::size_t depth = std::max<std::uint32_t>(host_.queue_depth, 1);
  auto wait_done = [](const LaunchHandle& l) {
    if (!l->finished()) sc_core::wait(l->done());
  };
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    sc_core::wait(from_ns(host_.framework_dispatch_ns));
    // A full queue blocks the runtime call until the oldest launch in flight finishes
    // and the host has noticed it.
    if (host_.async && i >= depth) {
      const LaunchHandle& oldest = launches_[i - depth];
      wait_done(oldest);
      const sc_core::sc_time seen = oldest->result().finished + from_ns(host_.sync_ns);
      if (seen > sc_core::sc_time_stamp()) sc_core::wait(seen - sc_core::sc_time_stamp());
    }
    sc_core::wait(from_ns(host_.runtime_call_ns));
    launches_.push_back(core_.launch(std::move(requests_[i])));
    if (!host_.async) {
      wait_done(launches_.back());
      sc_core::wait(from_ns(host_.sync_ns));
    }
  }
  if (!launches_.empty()) {
    if (host_.async) {
      wait_done(launches_.back());  // the device finishes in order
      sc_core::wait(from_ns(host_.sync_ns));
    }
  }
  end_ = sc_core::sc_time_stamp();
  finished_ = true;
}

}  // namespace neuronsim::sequence
