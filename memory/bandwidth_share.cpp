#include "memory/bandwidth_share.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace neuronsim::memory {

namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

double ns_of(const sc_core::sc_time& t) {
  return t.to_seconds() * 1e9;
}
double limit(double bytes_per_ns) {
  return bytes_per_ns > 0 ? bytes_per_ns : kUnlimited;
}

}  // namespace

sc_core::sc_time transfer_time(double bytes, double bytes_per_ns) {
  const sc_core::sc_time resolution = sc_core::sc_get_time_resolution();
  const double units = std::ceil(std::max(0.0, bytes / bytes_per_ns) / ns_of(resolution) - 1e-6);
  return resolution * std::max(0.0, units);
}

BandwidthShare::BandwidthShare(sc_core::sc_module_name name, double chip_bytes_per_ns,
                               double port_bytes_per_ns)
    : sc_module(name),
      chip_bytes_per_ns_(chip_bytes_per_ns),
      port_bytes_per_ns_(port_bytes_per_ns) {
  SC_METHOD(wake);
  sensitive << wake_event_;
  dont_initialize();
}

void BandwidthShare::start(Flow* flow) {
  advance();
  if (flow->remaining_bytes <= 0) {
    flow->done->notify(sc_core::SC_ZERO_TIME);
    return;
  }
  active_.push_back(flow);
  reschedule();
}

void BandwidthShare::wake() {
  advance();
  finish_completed();
  reschedule();
}

void BandwidthShare::advance() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const double elapsed_ns = ns_of(now - last_update_);
  last_update_ = now;
  if (elapsed_ns <= 0) return;
  for (Flow* f : active_)
    f->remaining_bytes -= f->rate * elapsed_ns;
}

void BandwidthShare::finish_completed() {
  // A flow whose remaining time is below the time resolution is done: completion times
  // are rounded up to the resolution, so what is left is rounding error.
  const double resolution_ns = ns_of(sc_core::sc_get_time_resolution());
  auto done = [&](Flow* f) {
    if (f->remaining_bytes > f->rate * resolution_ns) return false;
    f->done->notify(sc_core::SC_ZERO_TIME);
    return true;
  };
  active_.erase(std::remove_if(active_.begin(), active_.end(), done), active_.end());
}

// Water-filling of `left` bytes/ns over `flows`, smallest cap first; ties keep start order.
void BandwidthShare::share_port(std::vector<Flow*>& flows, double left) const {
  std::stable_sort(flows.begin(), flows.end(), [](const Flow* a, const Flow* b) {
    return a->cap_bytes_per_ns < b->cap_bytes_per_ns;
  });
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const double share = left / static_cast<double>(flows.size() - i);
    flows[i]->rate = std::min(flows[i]->cap_bytes_per_ns, share);
    left -= flows[i]->rate;
  }
}

void BandwidthShare::reschedule() {
  wake_event_.cancel();
  if (active_.empty()) return;
  std::map<unsigned, std::vector<Flow*>> ports;  // by port: a deterministic order
  for (Flow* f : active_)
    ports[f->port].push_back(f);
  // What each port asks of the chip, then the chip's bandwidth water-filled over the ports.
  struct Demand {
    std::vector<Flow*>* flows;
    double demand, granted;
  };
  std::vector<Demand> demands;
  for (auto& [port, flows] : ports) {
    double caps = 0;
    for (const Flow* f : flows)
      caps += f->cap_bytes_per_ns;
    demands.push_back({&flows, std::min(limit(port_bytes_per_ns_), caps), 0});
  }
  std::vector<Demand*> by_demand;
  for (auto& d : demands)
    by_demand.push_back(&d);
  std::stable_sort(by_demand.begin(), by_demand.end(),
                   [](const Demand* a, const Demand* b) { return a->demand < b->demand; });
  double chip_left = limit(chip_bytes_per_ns_);
  for (std::size_t i = 0; i < by_demand.size(); ++i) {
    const double share = chip_left / static_cast<double>(by_demand.size() - i);
    by_demand[i]->granted = std::min(by_demand[i]->demand, share);
    chip_left -= by_demand[i]->granted;
  }
  // A port the chip does not hold back shares its own limit, exactly as a lone port would.
  for (auto& d : demands)
    share_port(*d.flows, d.granted >= d.demand ? limit(port_bytes_per_ns_) : d.granted);

  double next_ns = kUnlimited;
  for (const Flow* f : active_)
    next_ns = std::min(next_ns, f->remaining_bytes / f->rate);
  wake_event_.notify(transfer_time(next_ns, 1.0));
}

}  // namespace neuronsim::memory
