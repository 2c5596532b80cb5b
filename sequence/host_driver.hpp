#pragma once
// The host model (sequence/host_model.hpp, docs/host-model.md) as a SystemC process: it
// dispatches each op (framework_dispatch_ns), submits it through the runtime
// (runtime_call_ns) with NeuronCore::launch, and notices completions (sync_ns). With
// `async` it runs ahead until `queue_depth` launches are in flight; without, it waits for
// each launch. The device starts a launch when it is submitted and the previous one is
// done, so the simulated timeline is schedule_launches()'s, event for event.
#include <cstdint>
#include <vector>

#include <systemc>

#include "config/target_config.hpp"
#include "neuronsim/neuron_core.hpp"

namespace neuronsim::sequence {

class HostDriver : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(HostDriver);
  // Launches `requests` on `core` in order, starting at time 0 of the simulation.
  HostDriver(sc_core::sc_module_name name, NeuronCore& core, const config::HostParams& host,
             std::vector<LaunchRequest> requests);

  bool finished() const { return finished_; }
  sc_core::sc_time end() const { return end_; }  // the host saw the last launch finish
  const std::vector<LaunchHandle>& launches() const { return launches_; }

 private:
  void run();

  NeuronCore& core_;
  config::HostParams host_;
  std::vector<LaunchRequest> requests_;
  std::vector<LaunchHandle> launches_;
  bool finished_ = false;
  sc_core::sc_time end_;
};

}  // namespace neuronsim::sequence
