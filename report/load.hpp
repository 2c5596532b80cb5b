#pragma once
// Loading profiles for the visual report (report/run.hpp, docs/report.md): a single-kernel
// profile directory (or its .ntff), or a launch-sequence profile directory, P/host.json
// plus one kernel profile per launch (P/launch_000/, ...). The report's own loader: it opens
// profiles through profile/ (profile/directory.hpp, host.json in profile/host_trace.hpp,
// the target's peak in profile/peak_flops.hpp), which knows nothing of the report.
#include <string>

#include "report/run.hpp"

namespace neuronsim::report {

// Throws neuronsim::Error naming the file, the field or launch, and the reason.
Run load_run(const std::string& path);

}  // namespace neuronsim::report
