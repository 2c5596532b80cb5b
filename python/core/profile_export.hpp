#pragma once
// What neuronsim.torch's profiler takes from the C++ side, so that it writes what the
// `neuronsim` program writes (docs/torch.md, "The profiler").
#include <string>

namespace neuronsim::python {

// `neuronsim export P --perfetto`'s JSON text for a sequence profile directory P (host
// lanes above the NeuronCore's; sequence/sequence_perfetto.hpp), bounded by export_bytes.
std::string sequence_perfetto(const std::string& profile_dir);

}  // namespace neuronsim::python
