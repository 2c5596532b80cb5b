#pragma once
// The report's inline stylesheet and its colours: one per opcode, DMA route, host phase
// and stall category, keyed by the data-op / data-stall attributes the SVG carries.
#include <string>

namespace neuronsim::report {

std::string report_css();
// "#4e79a7": the colour of a slice kind name (kind_name()); grey for unknown kinds.
std::string kind_colour(const std::string& kind);

}  // namespace neuronsim::report
