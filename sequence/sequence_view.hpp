#pragma once
// Views of a sequence profile directory (P/host.json + P/launch_NNN/): the
// correlate-device-time table (per op: launches, host time, device time, device %, share
// of the end-to-end time), totals (end to end, device, host, dispatch gaps), and a
// combined summary for `compare` (total = end to end; engine active time, instruction
// counts, DMA and memory bytes summed over the launches).
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile/host_trace.hpp"
#include "traces/summary.hpp"

namespace neuronsim::sequence {

struct SequenceProfile {
  std::string dir;
  profile::HostTrace host;
  std::vector<std::string> launch_dirs;  // P/launch_NNN, one per launch
  std::vector<traces::Summary> launches;
};

// Opens every launch's profile (refusing mismatched NEFF/trace pairs) and summarises it.
// A launch's trace total must equal its device time in host.json.
SequenceProfile open_sequence_profile(const std::string& dir);

struct OpRow {
  std::string op;
  std::size_t launches = 0;
  double host_ns = 0, device_ns = 0;
};
std::vector<OpRow> op_rows(const profile::HostTrace& host);  // in order of first launch

std::string sequence_view_text(const SequenceProfile& p);
nlohmann::ordered_json sequence_view_json(const SequenceProfile& p);

// The launches' summaries added up, with total_ps = the end-to-end time and the program's
// name as kernel name.
traces::Summary combined_summary(const SequenceProfile& p);

}  // namespace neuronsim::sequence
