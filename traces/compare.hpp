#pragma once
// Side-by-side comparison of N profiles' summaries: total time, per-engine active time and
// instruction counts, HBM bytes, DMA transfers, and speedup against the first (baseline).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/summary.hpp"

namespace neuronsim::traces {

struct LabelledSummary {
  std::string label;  // e.g. the profile directory
  Summary summary;
};

// baseline total / this total; 0 when this run took no time.
double speedup(const Summary& baseline, const Summary& s);

std::string compare_text(const std::vector<LabelledSummary>& runs);
nlohmann::ordered_json compare_json(const std::vector<LabelledSummary>& runs);

}  // namespace neuronsim::traces
