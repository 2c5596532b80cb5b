#pragma once
// Statistics of a finished launch: every one registered with name, unit, description and
// value, a count or a measure (docs/simulation.md lists them); Stats::json_text() writes
// them as JSON.
#include "sim/stats.hpp"

namespace neuronsim {

using sim::Statistic;
using sim::Stats;

}  // namespace neuronsim
