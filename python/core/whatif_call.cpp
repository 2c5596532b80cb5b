#include "python/core/whatif_call.hpp"

#include "python/core/json_to_python.hpp"
#include "python/core/session.hpp"
#include "whatif/analysis.hpp"
#include "whatif/output.hpp"

namespace neuronsim::python {

pybind11::dict whatif(const std::optional<std::string>& path,
                      const std::vector<std::shared_ptr<const isa::Kernel>>& kernels,
                      const std::string& source, const std::optional<std::string>& target,
                      const std::vector<std::string>& overrides, std::size_t max_waits,
                      bool allow_outside_files) {
  const whatif::Subject subject = path ? whatif::load_subject(*path, allow_outside_files)
                                       : whatif::kernels_subject(source, kernels);
  whatif::Options options;
  options.target = target ? *target : "";
  options.overrides = overrides;
  options.max_waits = max_waits;
  whatif::Result r;
  Session::get().run_alone([&] { r = whatif::analyse(subject, options); });
  pybind11::dict out = to_python(whatif::ranking_json(r)).cast<pybind11::dict>();
  out["text"] = whatif::ranking_text(r);
  return out;
}

}  // namespace neuronsim::python
