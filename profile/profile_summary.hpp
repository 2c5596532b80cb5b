#pragma once
// The summary of a profile as `neuronsim view` and `neuronsim.Profile` give it: the NTFF
// summarised against its NEFF's kernel, MFU against the peak of the kernel's target.
#include "isa/kernel.hpp"
#include "profile/directory.hpp"
#include "traces/summary.hpp"

namespace neuronsim::profile {

// Peak flops/s of the kernel on its own target (peak_flops_per_s), or `override_tflops`
// when positive; 0 (no MFU) when the target is unknown.
double kernel_peak_flops(const isa::Kernel& k, double override_tflops);

traces::Summary summarize_profile(const Profile& p, double override_tflops);

}  // namespace neuronsim::profile
