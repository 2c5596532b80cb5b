#pragma once
// What the profile commands (view, export, compare) share: opening a profile and the
// summary options derived from its NEFF (kernel, peak flops of its target).
#include <string>

#include "config/target_config.hpp"
#include "isa/error.hpp"
#include "profile/directory.hpp"
#include "traces/summary.hpp"

namespace neuronsim::cli {

// Peak dense bf16 flops/s of the kernel's target (reference section 1, via the target
// config), or `override_tflops` when positive; 0 when the target is unknown.
inline double peak_flops(const isa::Kernel& k, double override_tflops) {
  if (override_tflops > 0) return override_tflops * 1e12;
  try {
    return config::load_target(k.target).tensor_tflops_bf16 * 1e12;
  } catch (const Error&) {
    return 0;
  }
}

inline traces::Summary summarize_profile(const profile::Profile& p, double override_tflops) {
  traces::SummaryOptions o;
  o.kernel = &p.neff.kernel;
  o.peak_flops_per_s = peak_flops(p.neff.kernel, override_tflops);
  return traces::summarize_ntff(p.ntff_path, o);
}

}  // namespace neuronsim::cli
