#pragma once
// A run's data for the interactive viewer as compact JSON, embedded in the page in a
// <script type="application/json"> element (docs/report.md, "the viewer's data"):
// lanes as columns of integers (starts delta-coded per lane, durations, kinds, the
// instruction each engine slice is), the instruction details as columns, the DMA pieces
// that signalled a semaphore or lie on the critical path, the critical path, and the
// SBUF/PSUM occupancy steps. Times are integer picoseconds. '<' is written as \u003c so
// that the text cannot end its <script> element.
#include <string>

#include "report/run.hpp"

namespace neuronsim::report {

// Most slices (all lanes) a run embeds one by one; beyond, or when the run's instruction
// details were dropped, each lane is embedded pixel-fitted to kFittedColumns columns.
inline constexpr std::size_t kMaxViewerSlices = 1'000'000;
inline constexpr double kFittedColumns = 4096;

std::string viewer_json(const Run& run);

// JSON string literal of `text` (quotes included), with '<' escaped as above.
std::string json_string(const std::string& text);

}  // namespace neuronsim::report
