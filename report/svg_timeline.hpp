#pragma once
// A run's timeline as inline SVG: a time axis with ticks, then one lane per host phase
// (sequences), engine and DMA queue. Lanes are <g class="lane" data-lane="..."> holding
// <rect class="slice" data-op="..."> (colour by opcode / DMA route / host phase, from the
// page's CSS); slices narrower than a pixel are aggregated (pixel_fit.hpp).
#include <string>

#include "report/run.hpp"

namespace neuronsim::report {

struct TimelineLayout {
  double label_px = 150;  // lane names, left of the plot
  double plot_px = 1150;  // the time axis' length
  double right_px = 20;
  double axis_px = 30;
  double lane_px = 18;
  double lane_gap_px = 5;
  double group_gap_px = 12;
  int ticks = 10;
};

std::string timeline_svg(const Run& run, const TimelineLayout& layout = {});

}  // namespace neuronsim::report
