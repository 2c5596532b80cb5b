#pragma once
// Text helpers for the HTML report: escaping, fixed-precision numbers (locale-independent,
// so the same input gives the same bytes) and the time axis' tick marks.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuronsim::report {

std::string html_escape(std::string_view text);  // &, <, >, " and '
std::string px(double value);                    // "12.3": one decimal, "-0.0" never

struct Tick {
  std::uint64_t ps = 0;
  std::string label;  // "2.5 us"
};
// Round-numbered ticks (1, 2 or 5 times a power of ten) from 0 to total_ps, about
// `target_count` of them, labelled in one unit chosen from the step.
std::vector<Tick> time_ticks(std::uint64_t total_ps, int target_count);

}  // namespace neuronsim::report
