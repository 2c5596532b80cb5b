#pragma once
// Loading profiles for the visual report (report/run.hpp, docs/report.md): a single-kernel
// profile directory (or its .ntff), or a launch-sequence profile directory, P/host.json
// plus one kernel profile per launch (P/launch_000/, ...). It lives in profile/ because
// opening a profile (profile/directory.hpp) and the target's peak flops (config/target_config.hpp)
// do.
#include <string>

#include "report/run.hpp"

namespace neuronsim::profile {

// Throws neuronsim::Error naming the file, the field or launch, and the reason.
report::Run load_report_run(const std::string& path);

}  // namespace neuronsim::profile
