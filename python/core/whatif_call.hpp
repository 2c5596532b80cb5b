#pragma once
// neuronsim.whatif: the what-if analysis of `neuronsim whatif` (whatif/analysis.hpp), run
// alone in a fresh simulation context of the session (Session::run_alone).
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "isa/kernel.hpp"

namespace neuronsim::python {

// {"text": what `neuronsim whatif` prints, and the fields of `--json`: "ranking", ...}.
// Either `path` (a NEFF or a launch.json) or `kernels` (one launch each).
pybind11::dict whatif(const std::optional<std::string>& path,
                      const std::vector<std::shared_ptr<const isa::Kernel>>& kernels,
                      const std::string& source, const std::optional<std::string>& target,
                      const std::vector<std::string>& overrides, std::size_t max_waits,
                      bool allow_outside_files);

}  // namespace neuronsim::python
