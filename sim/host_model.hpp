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

#include "sim/config.hpp"

namespace neuronsim::sim {

struct Interval {
  double start_ns = 0, end_ns = 0;
  double length() const { return end_ns - start_ns; }
};

struct LaunchTiming {
  Interval framework_dispatch, runtime_call, device;
  double host_ns = 0;    // framework dispatch + runtime call
  double device_ns = 0;  // the kernel's simulated time
};

struct HostTimeline {
  std::vector<LaunchTiming> launches;
  double total_ns = 0;   // end to end: the host has seen the last launch finish
  double device_ns = 0;  // sum of device executions
  // Time the device sat idle while the host dispatched: total - device.
  double dispatch_gap_ns() const { return total_ns - device_ns; }
};

// Places launches with the given device times on the host timeline.
HostTimeline schedule_launches(const HostParams& host, const std::vector<double>& device_ns);

// {"framework_dispatch_ns": {"value": .., "unit": "ns"}, ...}: every parameter used.
nlohmann::ordered_json host_params_json(const HostParams& host);

}  // namespace neuronsim::sim
