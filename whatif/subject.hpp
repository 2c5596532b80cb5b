#pragma once
// What a what-if analysis runs: the kernel of one NEFF, or the launches of a launch
// sequence (launch.json), whose end-to-end time the host model gives from their device
// times (sequence/host_model.hpp).
#include <memory>
#include <string>
#include <vector>

#include "isa/kernel.hpp"

namespace neuronsim::whatif {

struct Subject {
  std::string source;                                       // the file, for messages
  std::vector<std::shared_ptr<const isa::Kernel>> kernels;  // in launch order
  std::vector<std::string> names;                           // per launch: its name
  bool sequence = false;                                    // a launch.json
  std::string target;  // the target a profile recorded; empty: the kernels' own
};

// Reads a NEFF or a launch.json (its NEFFs checked as `neuronsim run` checks them).
Subject load_subject(const std::string& path, bool allow_outside_files);

// The kernels of a profile directory (`neuronsim view --insights`, `report --insights`):
// one kernel profile, or a sequence profile (host.json + launch_NNN/), with the target its
// trace recorded.
Subject profile_subject(const std::string& dir);

// A subject of kernels already in memory (the Python module's), one launch each.
Subject kernels_subject(std::string source,
                        std::vector<std::shared_ptr<const isa::Kernel>> kernels);

}  // namespace neuronsim::whatif
