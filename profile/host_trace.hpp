#pragma once
// host.json of a sequence profile directory (docs/host-model.md, docs/profiling.md):
// P/host.json beside one single-kernel profile directory per launch, P/launch_000/, ...
// All times in ns from the start of the program (host time 0); device event times inside
// launch_NNN's trace are relative to that launch's device start.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace neuronsim::profile {

// The host timeline of a launch sequence, as the host model (sequence/host_model.hpp) computes
// it and host.json records it.
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

struct HostTraceLaunch {
  std::size_t index = 0;
  std::string name, op, profile;  // profile: the launch's folder, relative to P
  std::vector<std::string> nodes;
  LaunchTiming timing;
};

struct HostTrace {
  std::string program, mode, target;
  nlohmann::ordered_json host_model;  // every host parameter used, with value and unit
  double total_ns = 0, device_ns = 0;
  std::vector<HostTraceLaunch> launches;
  double host_ns() const;  // sum of the launches' framework + runtime time
};

inline constexpr const char* kHostTraceFile = "host.json";
std::string launch_profile_folder(std::size_t index);  // "launch_000"

nlohmann::ordered_json host_trace_json(const HostTrace& t);
// Reads P/host.json; throws neuronsim::Error naming the file and field.
HostTrace read_host_trace(const std::string& dir);
bool is_sequence_profile(const std::string& path);  // a directory holding host.json

}  // namespace neuronsim::profile
