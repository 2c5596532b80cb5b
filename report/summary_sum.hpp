#pragma once
// The summary of a launch sequence: its launches' device summaries added up. Times are
// sums of device time (total_ps too); the key_averages rows are merged by (engine,
// opcode). MFU is left to the caller, who knows the end-to-end time.
#include <vector>

#include "traces/summary.hpp"

namespace neuronsim::report {

traces::Summary add_summaries(const std::vector<const traces::Summary*>& parts);

}  // namespace neuronsim::report
