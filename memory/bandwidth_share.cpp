#include "memory/bandwidth_share.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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

// Water-filling of `left` bytes/ns over flows[begin, end), smallest cap first; ties keep
// start order (the index into active_: std::sort on (cap, index) is the stable order
// without stable_sort's temporary buffer).
void BandwidthShare::share_port(std::size_t begin, std::size_t end, double left) {
  std::sort(by_port_.begin() + static_cast<std::ptrdiff_t>(begin),
            by_port_.begin() + static_cast<std::ptrdiff_t>(end),
            [](const Entry& a, const Entry& b) {
              return a.flow->cap_bytes_per_ns != b.flow->cap_bytes_per_ns
                         ? a.flow->cap_bytes_per_ns < b.flow->cap_bytes_per_ns
                         : a.order < b.order;
            });
  for (std::size_t i = begin; i < end; ++i) {
    Flow* f = by_port_[i].flow;
    const double share = left / static_cast<double>(end - i);
    f->rate = std::min(f->cap_bytes_per_ns, share);
    left -= f->rate;
  }
}

// Runs on every start and completion of a DMA part, so it allocates nothing once the
// scratch vectors have grown to the largest set of flows seen.
void BandwidthShare::reschedule() {
  wake_event_.cancel();
  if (active_.empty()) return;
  // The flows by port (a deterministic order), each port's in start order.
  by_port_.clear();
  for (std::size_t i = 0; i < active_.size(); ++i)
    by_port_.push_back({active_[i], i});
  std::sort(by_port_.begin(), by_port_.end(), [](const Entry& a, const Entry& b) {
    return a.flow->port != b.flow->port ? a.flow->port < b.flow->port : a.order < b.order;
  });
  // What each port asks of the chip, then the chip's bandwidth water-filled over the ports.
  ports_.clear();
  for (std::size_t i = 0; i < by_port_.size();) {
    PortDemand d;
    d.begin = i;
    double caps = 0;
    const unsigned port = by_port_[i].flow->port;
    for (; i < by_port_.size() && by_port_[i].flow->port == port; ++i)
      caps += by_port_[i].flow->cap_bytes_per_ns;
    d.end = i;
    d.demand = std::min(limit(port_bytes_per_ns_), caps);
    ports_.push_back(d);
  }
  by_demand_.clear();
  for (std::size_t i = 0; i < ports_.size(); ++i)
    by_demand_.push_back(i);
  std::sort(by_demand_.begin(), by_demand_.end(), [&](std::size_t a, std::size_t b) {
    return ports_[a].demand != ports_[b].demand ? ports_[a].demand < ports_[b].demand : a < b;
  });
  double chip_left = limit(chip_bytes_per_ns_);
  for (std::size_t i = 0; i < by_demand_.size(); ++i) {
    PortDemand& d = ports_[by_demand_[i]];
    const double share = chip_left / static_cast<double>(by_demand_.size() - i);
    d.granted = std::min(d.demand, share);
    chip_left -= d.granted;
  }
  // A port the chip does not hold back shares its own limit, exactly as a lone port would.
  for (const PortDemand& d : ports_)
    share_port(d.begin, d.end, d.granted >= d.demand ? limit(port_bytes_per_ns_) : d.granted);

  double next_ns = kUnlimited;
  for (const Flow* f : active_)
    next_ns = std::min(next_ns, f->remaining_bytes / f->rate);
  wake_event_.notify(transfer_time(next_ns, 1.0));
}

}  // namespace neuronsim::memory
