#include "engines/bandwidth_share.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engines/sim_time.hpp"

namespace neuronsim::engines {

BandwidthShare::BandwidthShare(sc_core::sc_module_name name, double hbm_bytes_per_ns)
    : sc_module(name), hbm_bytes_per_ns_(hbm_bytes_per_ns) {
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
  const double elapsed_ns = to_ns(now - last_update_);
  last_update_ = now;
  if (elapsed_ns <= 0) return;
  for (Flow* f : active_)
    f->remaining_bytes -= f->rate * elapsed_ns;
}

void BandwidthShare::finish_completed() {
  // A flow whose remaining time is below the time resolution is done: completion times
  // are rounded up to the resolution, so what is left is rounding error.
  const double resolution_ns = to_ns(sc_core::sc_get_time_resolution());
  auto done = [&](Flow* f) {
    if (f->remaining_bytes > f->rate * resolution_ns) return false;
    f->done->notify(sc_core::SC_ZERO_TIME);
    return true;
  };
  active_.erase(std::remove_if(active_.begin(), active_.end(), done), active_.end());
}

void BandwidthShare::reschedule() {
  wake_event_.cancel();
  if (active_.empty()) return;
  // Water-filling over the HBM flows, smallest cap first; ties keep start order.
  std::vector<Flow*> hbm;
  for (Flow* f : active_) {
    if (f->shares_hbm && hbm_bytes_per_ns_ > 0)
      hbm.push_back(f);
    else
      f->rate = f->cap_bytes_per_ns;
  }
  std::stable_sort(hbm.begin(), hbm.end(), [](const Flow* a, const Flow* b) {
    return a->cap_bytes_per_ns < b->cap_bytes_per_ns;
  });
  double left = hbm_bytes_per_ns_;
  for (std::size_t i = 0; i < hbm.size(); ++i) {
    const double share = left / static_cast<double>(hbm.size() - i);
    hbm[i]->rate = std::min(hbm[i]->cap_bytes_per_ns, share);
    left -= hbm[i]->rate;
  }
  double next_ns = std::numeric_limits<double>::infinity();
  for (const Flow* f : active_)
    next_ns = std::min(next_ns, f->remaining_bytes / f->rate);
  // Round up to whole resolution units so the flow is really done when we wake.
  const sc_core::sc_time resolution = sc_core::sc_get_time_resolution();
  const double units = std::ceil(std::max(0.0, next_ns) / to_ns(resolution) - 1e-6);
  wake_event_.notify(resolution * std::max(0.0, units));
}

}  // namespace neuronsim::engines
