#pragma once
// The Tensor engine's throttle (NeuronCore-v3 and v4): after a quiet spell the PE array
// starts at a fraction of its rate and ramps linearly to full rate over `ramp` cycles of
// work; idle time runs the ramp back down one cycle per cycle, so a stream of bursts with
// low utilisation stays throttled (Neuron Explorer's summary-page guide describes a throttle
// that starts at about half rate, ramps over a few microseconds and re-engages after low
// utilisation; docs/cost-model.md, "Tensor throttle", gives the parameters and why).
// How long an instruction takes once it is throttled: plain C++, no SystemC, so the model
// is tested on its own (tests/unit/cost_tensor_throttle.cpp).
#include <cstdint>

namespace neuronsim::isa::cost {

class TensorThrottle {
 public:
  // start_percent: the rate when fully engaged, in percent of full (1..100);
  // ramp_cycles: work from engaged to full rate (0: no throttle at all).
  TensorThrottle(std::uint32_t start_percent, double ramp_cycles);

  // The engine starts `cycles` of full-rate work at `start` (in cycles of its clock, not
  // before the end of the previous work): returns the cycles it takes throttled (at least
  // `cycles`) and moves the ramp.
  std::uint64_t run(double start, std::uint64_t cycles);

  // How far up the ramp the engine is: 0 fully engaged, ramp_cycles released.
  double warmth() const { return warmth_; }

 private:
  double work_done(double warmth) const;   // full-rate work done from 0 to `warmth`
  double warmth_after(double work) const;  // its inverse

  double start_fraction_;
  double ramp_;
  double warmth_ = 0;
  double last_end_ = 0;
};

}  // namespace neuronsim::isa::cost
