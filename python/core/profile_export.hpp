#pragma once
// What neuronsim.torch's profiler takes from the C++ side, so that it writes what the
// `neuronsim` program writes (docs/torch.md, "The profiler").
#include <string>
#include <vector>

namespace neuronsim::python {

// `neuronsim export P --perfetto`'s JSON text for a sequence profile directory P (host
// lanes above the NeuronCore's; profile/sequence_perfetto.hpp), bounded by export_bytes.
std::string sequence_perfetto(const std::string& profile_dir);

// The `host_model` object of host.json for a target and its override files: every host
// parameter with its value and unit (host/host_model.hpp, host_params_json).
std::string host_model_json(const std::string& target, const std::vector<std::string>& overrides);

}  // namespace neuronsim::python
