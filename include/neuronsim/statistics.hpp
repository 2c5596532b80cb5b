#pragma once
// Statistics of a finished launch: every one registered with name, unit and description
// (docs/simulation.md lists them); Stats::to_json() dumps them.
#include "sim/stats.hpp"

namespace neuronsim {

using sim::Statistic;
using sim::Stats;

}  // namespace neuronsim
