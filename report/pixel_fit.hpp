#pragma once
// Fitting a lane to a picture `width_px` wide: a slice at least `min_px` wide is drawn as
// itself; narrower slices are summed per pixel column into one rectangle coloured by the
// kind that took most of the column's time and shaded by how much of the column they
// cover. Adjacent columns alike (same kind, same shade) merge. A lane is then at most
// width_px / min_px single slices plus width_px aggregates, whatever the trace's length:
// that bounds the size of the SVG (docs/report.md gives the budget).
#include <cstdint>
#include <vector>

#include "report/run.hpp"

namespace neuronsim::report {

struct PixelRect {
  double x0 = 0, x1 = 0;  // pixels from the time axis' origin
  std::uint16_t kind = 0;
  bool aggregated = false;  // stands for slices narrower than min_px
  double coverage = 1;      // busy share of the rectangle, in quarters (0.25 .. 1)
  std::uint32_t count = 0;  // slices (instructions, DMA pieces) it stands for
  std::uint64_t busy_ps = 0;
  std::uint64_t bytes = 0;
  std::uint64_t start_ps = 0, end_ps = 0;  // first slice's start, last slice's end
};

// `slices` sorted by start and not overlapping (a Lane's); times beyond total_ps are
// clipped to the picture.
std::vector<PixelRect> fit_lane(const std::vector<Slice>& slices, std::uint64_t total_ps,
                                double width_px, double min_px = 1.0);

}  // namespace neuronsim::report
