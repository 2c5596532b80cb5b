#include "cost/tensor_throttle.hpp"

#include <algorithm>
#include <cmath>

namespace neuronsim::isa::cost {

TensorThrottle::TensorThrottle(std::uint32_t start_percent, double ramp_cycles)
    : start_fraction_(std::clamp(start_percent, 1u, 100u) / 100.0),
      ramp_(std::max(0.0, ramp_cycles)) {}

// The rate at warmth t is s + (1 - s) t / R up the ramp and 1 beyond it, so the work done
// from 0 to t is s t + (1 - s) t^2 / (2R), and R (1 + s) / 2 at the top.
double TensorThrottle::work_done(double warmth) const {
  const double s = start_fraction_;
  if (warmth >= ramp_) return ramp_ * (1 + s) / 2 + (warmth - ramp_);
  return s * warmth + (1 - s) * warmth * warmth / (2 * ramp_);
}

// The root of (1 - s) t^2 / (2R) + s t - w = 0, written 2w / (s + sqrt(s^2 + 2(1 - s) w / R))
// so it stays exact as s reaches 1.
double TensorThrottle::warmth_after(double work) const {
  const double s = start_fraction_;
  const double top = ramp_ * (1 + s) / 2;
  if (work >= top) return ramp_ + (work - top);
  return 2 * work / (s + std::sqrt(s * s + 2 * (1 - s) * work / ramp_));
}

std::uint64_t TensorThrottle::run(double start, std::uint64_t cycles) {
  if (ramp_ == 0 || cycles == 0) return cycles;
  warmth_ = std::max(0.0, warmth_ - std::max(0.0, start - last_end_));  // idle cools
  const double end = warmth_after(work_done(warmth_) + static_cast<double>(cycles));
  // Rounded up to whole cycles; the 1e-9 keeps an exact count from rounding up.
  const auto throttled =
      std::max(cycles, static_cast<std::uint64_t>(std::ceil(end - warmth_ - 1e-9)));
  warmth_ = std::min(ramp_, warmth_ + static_cast<double>(throttled));
  last_end_ = start + static_cast<double>(throttled);
  return throttled;
}

}  // namespace neuronsim::isa::cost
