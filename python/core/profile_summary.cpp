#include "python/core/profile_summary.hpp"

#include "profile/directory.hpp"
#include "profile/profile_summary.hpp"
#include "python/core/json_to_python.hpp"
#include "traces/summary.hpp"

namespace py = pybind11;

namespace neuronsim::python {

py::dict profile_summary(const std::string& path, double peak_tflops, std::size_t top) {
  const profile::Profile p = profile::open_profile(path);
  // The summary `neuronsim view` gives (MFU against the kernel's target's peak).
  const traces::Summary s = profile::summarize_profile(p, peak_tflops);
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
