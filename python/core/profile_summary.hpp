#pragma once
// neuronsim.Profile's numbers: what `neuronsim view` prints for a profile directory.
#include <string>

#include <pybind11/pybind11.h>

namespace neuronsim::python {

// {"summary": the JSON of `neuronsim view --json` (summary fields, stall_attribution,
// key_averages), "text": the text of `neuronsim view --top top`, "neff", "ntff": the
// files}. peak_tflops > 0 replaces the target's peak (view's --peak-tflops).
pybind11::dict profile_summary(const std::string& path, double peak_tflops, std::size_t top);

}  // namespace neuronsim::python
