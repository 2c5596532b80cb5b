#pragma once
// What the profile commands (view, export, compare) share: opening a profile and the
// summary options derived from its NEFF (kernel, peak flops of its target).
#include <string>

#include "config/target_config.hpp"
#include "isa/error.hpp"
#include "profile/directory.hpp"
#include "profile/peak_flops.hpp"
#include "traces/summary.hpp"

namespace neuronsim::cli {

// Peak flops/s of the kernel on its target (profile/peak_flops.hpp: the TFLOPS of its
// matmuls' dtypes), or `override_tflops` when positive; 0 when the target is unknown.
inline double peak_flops(const isa::Kernel& k, double override_tflops) {
  if (override_tflops > 0) return override_tflops * 1e12;
  try {
    return profile::peak_flops_per_s(config::load_target(k.target), k);
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
