#pragma once
// The statistics of a finished launch, gathered from the groups of the modules that
// counted them (private to sim/).
#include <systemc>

#include "neuronsim/config.hpp"
#include "neuronsim/launch.hpp"
#include "sim/launch_state.hpp"

namespace neuronsim::detail {

// Every group of the launch, which ran for `total`.
LaunchStats collect_stats(const config::TargetConfig& config, const LaunchState& launch,
                          sc_core::sc_time total);

}  // namespace neuronsim::detail
