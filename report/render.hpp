#pragma once
// The whole report as one self-contained HTML page (inline CSS and SVG, no script, no
// external reference): comparison of the runs, the explain section, a legend, then per
// run its timeline, stall attribution and summary. Same runs -> same bytes.
#include <string>
#include <vector>

#include "report/run.hpp"

namespace neuronsim::report {

std::string render_report(const std::vector<Run>& runs);

}  // namespace neuronsim::report
