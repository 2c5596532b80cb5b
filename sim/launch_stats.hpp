#pragma once
// The statistics and per-engine summaries of a finished launch (private to sim/).
#include <systemc>

#include "neuronsim/config.hpp"
#include "neuronsim/launch.hpp"
#include "sim/launch_state.hpp"

namespace neuronsim::detail {

// Every statistic of the launch, which ran for `total`.
Stats collect_stats(const config::TargetConfig& config, const LaunchState& launch,
                    sc_core::sc_time total);
EngineSummary summarise(const engines::Engine& e, sc_core::sc_time total);

}  // namespace neuronsim::detail
