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
#include "host/launch_sequence.hpp"
#include "profile/host_trace.hpp"

namespace neuronsim::host {

// Places launches with the given device times on the host timeline.
profile::HostTimeline schedule_launches(const config::HostParams& host,
                                        const std::vector<double>& device_ns);

// The host.json record of a sequence run with `timeline`.
profile::HostTrace make_host_trace(const LaunchSequence& seq, const config::TargetConfig& config,
                                   const profile::HostTimeline& timeline);

// {"framework_dispatch_ns": {"value": .., "unit": "ns"}, ...}: every parameter used.
nlohmann::ordered_json host_params_json(const config::HostParams& host);

}  // namespace neuronsim::host
