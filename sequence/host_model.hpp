#pragma once
// The host around a sequence of kernel launches (docs/host-model.md): per launch, the
// framework dispatches the op on the CPU, the runtime call submits the NEFF, the device
// executes it (the simulated time), and the host notices completions. With `async` the
// host runs ahead: it dispatches op i+1 while the device runs op i, until `queue_depth`
// launches are in flight; without it, the host waits for each launch to finish.
// Pure arithmetic on times in ns (host time 0 = the program starts); no SystemC.
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/target_config.hpp"
#include "profile/host_trace.hpp"
#include "sequence/launch_sequence.hpp"

namespace neuronsim::sequence {

// The host model one launch at a time, for a host that learns each device time as it
// goes (the Python eager runtime, python/neuronsim/torch/): launch(device_ns) places the
// next launch exactly as schedule_launches does, host_op() places host work that runs no
// kernel (a framework dispatch only: a view, a metadata op), synchronize() makes the host
// wait for everything submitted. schedule_launches is this loop over a whole sequence.
class LaunchScheduler {
 public:
  explicit LaunchScheduler(const config::HostParams& host) : host_(host) {}
  profile::LaunchTiming launch(double device_ns);
  profile::Interval host_op();
  // The host waits until the device has finished everything submitted, then pays the sync
  // cost; returns the host time then (unchanged when nothing was ever launched).
  double synchronize();
  double host_now_ns() const { return host_free_; }
  double device_free_ns() const { return device_free_; }
  // End to end so far: the host has seen the last launch finish (0 with no launch).
  double total_ns() const { return launches_.empty() ? 0 : device_free_ + host_.sync_ns; }
  const std::vector<profile::LaunchTiming>& launches() const { return launches_; }

 private:
  config::HostParams host_;
  double host_free_ = 0;    // the host thread is free to dispatch the next op
  double device_free_ = 0;  // the device has finished everything submitted so far
  std::vector<profile::LaunchTiming> launches_;
};

// Places launches with the given device times on the host timeline.
profile::HostTimeline schedule_launches(const config::HostParams& host,
                                        const std::vector<double>& device_ns);

// The host.json record of a sequence run with `timeline`.
profile::HostTrace make_host_trace(const LaunchSequence& seq, const config::TargetConfig& config,
                                   const profile::HostTimeline& timeline);

// {"framework_dispatch_ns": {"value": .., "unit": "ns"}, ...}: every parameter used.
nlohmann::ordered_json host_params_json(const config::HostParams& host);

}  // namespace neuronsim::sequence
