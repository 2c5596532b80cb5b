#include "memory/bandwidth_share.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace neuronsim::memory {

namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();
// Fixed point of the cap sums (count_cap): units of 2^-20 bytes/ns, caps up to 1e9 bytes/ns
// (the HBM model's "no limit"), so millions of flows fit in 63 bits.
constexpr double kFixedScale = 1048576.0;
constexpr double kFixedMaxCap = 1e9;

double ns_of(const sc_core::sc_time& t) {
  return t.to_seconds() * 1e9;
}
double limit(double bytes_per_ns) {
  return bytes_per_ns > 0 ? bytes_per_ns : kUnlimited;
}

}  // namespace

sc_core::sc_time transfer_time(double bytes, double bytes_per_ns) {
  // The resolution is fixed once the first sc_time exists, so it is read once (this runs
  // for every DMA part and every bandwidth change).
  static const sc_core::sc_time resolution = sc_core::sc_get_time_resolution();
  static const double resolution_ns = ns_of(resolution);
  const double units = std::ceil(std::max(0.0, bytes / bytes_per_ns) / resolution_ns - 1e-6);
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

void BandwidthShare::start(const Flow& flow) {
  advance();
  if (flow.remaining_bytes <= 0) {
    flow.done->notify(sc_core::SC_ZERO_TIME);
    return;
  }
  active_.push_back({flow.remaining_bytes, flow.cap_bytes_per_ns, 0.0, flow.port, flow.done});
  count_cap(active_.back(), +1);
  reschedule();
}

void BandwidthShare::wake() {
  advance();
  finish_completed();  // clears next_known_: the fast path below is start()'s only
  reschedule();
}

void BandwidthShare::advance() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const double elapsed_ns = ns_of(now - last_update_);
  last_update_ = now;
  if (elapsed_ns <= 0) return;
  for (Active& f : active_)
    f.remaining_bytes -= f.rate * elapsed_ns;
  next_known_ = false;
}

void BandwidthShare::finish_completed() {
  // A flow whose remaining time is below the time resolution is done: completion times
  // are rounded up to the resolution, so what is left is rounding error.
  const double resolution_ns = ns_of(sc_core::sc_get_time_resolution());
  auto done = [&](const Active& f) {
    if (f.remaining_bytes > f.rate * resolution_ns) return false;
    f.done->notify(sc_core::SC_ZERO_TIME);
    count_cap(f, -1);
    return true;
  };
  active_.erase(std::remove_if(active_.begin(), active_.end(), done), active_.end());
  next_known_ = false;
}

// Caps are summed per port in fixed point, each rounded up: integer sums are exact however
// many flows come and go, and never below the true sum. A cap too large for that is only
// counted (and keeps all_at_cap() false while it is active).
void BandwidthShare::count_cap(const Active& f, int sign) {
  if (f.port >= port_caps_.size()) port_caps_.resize(f.port + 1, 0);
  if (!(f.cap_bytes_per_ns <= kFixedMaxCap)) {
    huge_caps_ += sign;
    return;
  }
  const auto fixed = static_cast<std::int64_t>(std::ceil(f.cap_bytes_per_ns * kFixedScale));
  port_caps_[f.port] += sign * fixed;
  chip_caps_ += sign * fixed;
}

// True when no limit binds, so that the water-filling of share_all() would give every flow
// exactly its cap: each port's flows ask for less than the port's limit and the ports
// together for less than the chip's. Then in the water-filling every fair share is at
// least the cap it is compared with (sorted smallest first, what is left always covers
// the rest), so min(cap, share) is the cap itself, whatever the order. The sums are upper
// bounds (count_cap) and the relative margin (1e-9, far above the rounding of the
// water-filling's running sums, about 1e-16 per flow) leaves the cases too close to call
// to the full computation, so the rates are the same doubles either way. O(ports), no
// sorting: the common case of DMA engines below the HBM bandwidth.
bool BandwidthShare::all_at_cap() const {
  constexpr double kMargin = 1 + 1e-9;
  if (huge_caps_ > 0) return false;
  const double port_limit = limit(port_bytes_per_ns_);
  for (const std::int64_t caps : port_caps_)
    if (static_cast<double>(caps) / kFixedScale * kMargin > port_limit) return false;
  return static_cast<double>(chip_caps_) / kFixedScale * kMargin <= limit(chip_bytes_per_ns_);
}

// Runs on every start and completion of a DMA part, so it allocates nothing once the
// scratch vectors have grown to the largest set of flows seen. When the rates were the
// caps and stay so, and a flow was only added at the time of the last update, no other
// flow's rate or bytes changed: the next completion is the earlier of the one known and
// the new flow's (the same minimum of the same doubles), O(ports) instead of O(flows).
// The wake-up is cancelled and notified again every time all the same: SystemC orders
// processes woken at one instant by its queue of timed notifications, so the sequence of
// notifications is part of the timing that must not change.
void BandwidthShare::reschedule() {
  wake_event_.cancel();
  if (active_.empty()) {
    next_known_ = false;
    return;
  }
  const bool at_cap = all_at_cap();
  if (at_cap && rates_are_caps_ && next_known_) {
    Active& f = active_.back();
    f.rate = f.cap_bytes_per_ns;
    next_ns_ = std::min(next_ns_, f.remaining_bytes / f.rate);
  } else {
    if (at_cap) {
      for (Active& f : active_)
        f.rate = f.cap_bytes_per_ns;
    } else {
      share_all();
    }
    next_ns_ = kUnlimited;
    for (const Active& f : active_)
      next_ns_ = std::min(next_ns_, f.remaining_bytes / f.rate);
  }
  rates_are_caps_ = at_cap;
  next_known_ = true;
  wake_event_.notify(transfer_time(next_ns_, 1.0));
}

// Sets every flow's rate: the two-level max-min fair water-filling the header describes.
void BandwidthShare::share_all() {
  // The flows by port (a deterministic order), each port's in start order.
  by_port_.clear();
  for (std::size_t i = 0; i < active_.size(); ++i)
    by_port_.push_back({&active_[i], i});
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
    Active* f = by_port_[i].flow;
    const double share = left / static_cast<double>(end - i);
    f->rate = std::min(f->cap_bytes_per_ns, share);
    left -= f->rate;
  }
}

}  // namespace neuronsim::memory
