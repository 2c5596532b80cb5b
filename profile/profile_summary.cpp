#include "profile/profile_summary.hpp"

#include "base/error.hpp"
#include "config/target_config.hpp"
#include "profile/peak_flops.hpp"

namespace neuronsim::profile {

double kernel_peak_flops(const isa::Kernel& k, double override_tflops) {
  if (override_tflops > 0) return override_tflops * 1e12;
  try {
    return peak_flops_per_s(config::load_target(k.target), k);
  } catch (const Error&) {
    return 0;
  }
}

traces::Summary summarize_profile(const Profile& p, double override_tflops) {
  traces::SummaryOptions o;
  o.kernel = &p.neff.kernel;
  o.peak_flops_per_s = kernel_peak_flops(p.neff.kernel, override_tflops);
  return traces::summarize_ntff(p.ntff_path, o);
}

}  // namespace neuronsim::profile
