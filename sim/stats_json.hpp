#pragma once
// The statistics of a run as a JSON document, for the writers that embed it in a larger
// one (`run --stats-json`, launch sequences). Internal: the public API has
// LaunchStats::json_text().
#include <nlohmann/json.hpp>

#include "sim/stats.hpp"

namespace neuronsim::sim {

// {"<name>": {"value": v, "unit": u, "description": d}, ...} in LaunchStats::all()'s order.
nlohmann::ordered_json stats_json(const LaunchStats& stats);

}  // namespace neuronsim::sim
