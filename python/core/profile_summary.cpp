#include "python/core/profile_summary.hpp"

#include "config/target_config.hpp"
#include "isa/error.hpp"
#include "profile/directory.hpp"
#include "profile/peak_flops.hpp"
#include "python/core/json_to_python.hpp"
#include "traces/summary.hpp"

namespace py = pybind11;

namespace neuronsim::python {

py::dict profile_summary(const std::string& path, double peak_tflops, std::size_t top) {
  const profile::Profile p = profile::open_profile(path);
  traces::SummaryOptions options;
  options.kernel = &p.neff.kernel;
  // The peak `neuronsim view` uses: the kernel's target's, 0 (no MFU) for an unknown one.
  if (peak_tflops > 0)
    options.peak_flops_per_s = peak_tflops * 1e12;
  else
    try {
      options.peak_flops_per_s =
          profile::peak_flops_per_s(config::load_target(p.neff.kernel.target), p.neff.kernel);
    } catch (const Error&) {
      options.peak_flops_per_s = 0;
    }
  const traces::Summary s = traces::summarize_ntff(p.ntff_path, options);
  py::dict out;
  nlohmann::ordered_json j = traces::summary_json(s);
  j["units"] = traces::kJsonUnits;
  out["summary"] = to_python(j);
  out["text"] = "profile " + p.ntff_path + "\n" + traces::summary_text(s, top);
  out["neff"] = p.neff_path;
  out["ntff"] = p.ntff_path;
  return out;
}

}  // namespace neuronsim::python
