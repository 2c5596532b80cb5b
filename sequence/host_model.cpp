#include "sequence/host_model.hpp"

#include <algorithm>

namespace neuronsim::sequence {

profile::LaunchTiming LaunchScheduler::launch(double device_ns) {
  const std::size_t i = launches_.size();
  const std::size_t depth = std::max<std::uint32_t>(host_.queue_depth, 1);
  profile::LaunchTiming l;
  l.framework_dispatch = {host_free_, host_free_ + host_.framework_dispatch_ns};
  double submit = l.framework_dispatch.end_ns;
  // A full queue blocks the runtime call until the oldest launch in flight finishes.
  if (host_.async && i >= depth) {
    submit = std::max(submit, launches_[i - depth].device.end_ns + host_.sync_ns);
  }
  l.runtime_call = {submit, submit + host_.runtime_call_ns};
  const double start = std::max(l.runtime_call.end_ns, device_free_);
  l.device = {start, start + device_ns};
  l.host_ns = l.framework_dispatch.length() + l.runtime_call.length();
  l.device_ns = device_ns;
  device_free_ = l.device.end_ns;
  host_free_ = host_.async ? l.runtime_call.end_ns : l.device.end_ns + host_.sync_ns;
  launches_.push_back(l);
  return l;
}

profile::Interval LaunchScheduler::host_op() {
  const profile::Interval op{host_free_, host_free_ + host_.framework_dispatch_ns};
  host_free_ = op.end_ns;
  return op;
}

double LaunchScheduler::synchronize() {
  if (!launches_.empty()) host_free_ = std::max(host_free_, device_free_ + host_.sync_ns);
  return host_free_;
}

profile::HostTimeline schedule_launches(const config::HostParams& host,
                                        const std::vector<double>& device_ns) {
  LaunchScheduler s(host);
  profile::HostTimeline t;
  for (const double d : device_ns) {
    t.launches.push_back(s.launch(d));
    t.device_ns += d;
  }
  // The program ends when the host has seen the last launch finish (async: the final
  // synchronize; sync: it waited for every launch). The device finishes in order, so the
  // last launch is the last to finish.
  t.total_ns = s.total_ns();
  return t;
}

profile::HostTrace make_host_trace(const LaunchSequence& seq, const config::TargetConfig& config,
                                   const profile::HostTimeline& timeline) {
  profile::HostTrace t;
  t.program = seq.program;
  t.mode = seq.mode;
  t.target = config.name;
  t.host_model = host_params_json(config.host);
  t.total_ns = timeline.total_ns;
  t.device_ns = timeline.device_ns;
  for (std::size_t i = 0; i < seq.launches.size(); ++i) {
    profile::HostTraceLaunch l;
    l.index = i;
    l.name = seq.launches[i].name;
    l.op = seq.launches[i].op;
    l.nodes = seq.launches[i].nodes;
    l.profile = profile::launch_profile_folder(i);
    l.timing = timeline.launches.at(i);
    t.launches.push_back(std::move(l));
  }
  return t;
}

nlohmann::ordered_json host_params_json(const config::HostParams& host) {
  auto v = [](auto value, const char* unit) {
    return nlohmann::ordered_json{{"value", value}, {"unit", unit}};
  };
  return {{"framework_dispatch_ns", v(host.framework_dispatch_ns, "ns")},
          {"runtime_call_ns", v(host.runtime_call_ns, "ns")},
          {"sync_ns", v(host.sync_ns, "ns")},
          {"async", v(host.async, "flag")},
          {"queue_depth", v(host.queue_depth, "count")}};
}

}  // namespace neuronsim::sequence
