#include "report/svg_timeline.hpp"

#include <map>

#include "report/html_text.hpp"
#include "report/pixel_fit.hpp"
#include "traces/format.hpp"

namespace neuronsim::report {

namespace {

using traces::human_bytes;
using traces::human_time;

// Tooltips only on rectangles wide enough to point at: keeps large timelines small.
constexpr double kTitleMinPx = 3.0;

std::string rect_title(const Lane& lane, const PixelRect& r, const Run& run) {
  const std::string what = kind_label(lane.group, r.kind);
  const std::string span = human_time(r.end_ps - r.start_ps);
  const std::string at = " at " + human_time(r.start_ps);
  if (lane.group == LaneGroup::host) {
    for (const RunLaunch& l : run.launches) {
      const Interval spans[] = {l.framework_dispatch, l.runtime_call, l.device};
      if (!r.aggregated && spans[r.kind].start_ps == r.start_ps)
        return l.name + " (" + l.op + "): " + what + " " + span + at;
    }
    return std::to_string(r.count) + " launches, mostly " + what + ", busy " +
           human_time(r.busy_ps) + " of " + span + at;
  }
  if (lane.group == LaneGroup::dma) {
    const double gbps = r.busy_ps ? static_cast<double>(r.bytes) * 1e3 / r.busy_ps : 0;
    return std::string(r.aggregated ? "DMA activity, mostly " : "") + what + ": " +
           std::to_string(r.count) + " pieces, " + human_bytes(r.bytes) + " in " +
           human_time(r.busy_ps) + " (" + traces::fixed(gbps, 1) + " GB/s)" + at;
  }
  if (r.aggregated)
    return std::to_string(r.count) + " instructions, mostly " + what + ", busy " +
           human_time(r.busy_ps) + " of " + span + at;
  return what + " " + span + at;
}

// The device lane of a sequence names each launch's op where it fits.
void launch_names(std::string& out, const Run& run, double scale, const TimelineLayout& L) {
  for (const RunLaunch& l : run.launches) {
    const double w = static_cast<double>(l.device.duration_ps()) * scale;
    const std::string text = l.op.empty() ? l.name : l.op;
    if (w < 7.0 * static_cast<double>(text.size()) + 6) continue;
    out += "<text class=\"in-slice\" x=\"" +
           px(static_cast<double>(l.device.start_ps) * scale + w / 2) + "\" y=\"" +
           px(L.lane_px - 5) + "\">" + html_escape(text) + "</text>";
  }
}

}  // namespace

std::string timeline_svg(const Run& run, const TimelineLayout& L) {
  const std::uint64_t total = run.total_ps ? run.total_ps : 1;
  const double scale = L.plot_px / static_cast<double>(total);

  // Lane positions: groups separated by a wider gap.
  std::vector<double> lane_y;
  double y = L.axis_px;
  for (std::size_t i = 0; i < run.lanes.size(); ++i) {
    if (i > 0) y += run.lanes[i].group != run.lanes[i - 1].group ? L.group_gap_px : L.lane_gap_px;
    lane_y.push_back(y);
    y += L.lane_px;
  }
  const double height = y + 8;
  const double width = L.label_px + L.plot_px + L.right_px;

  std::string out;
  out += "<svg class=\"timeline\" width=\"" + px(width) + "\" height=\"" + px(height) +
         "\" viewBox=\"0 0 " + px(width) + " " + px(height) +
         "\" role=\"img\" aria-label=\"timeline of " + html_escape(run.label) + "\">";

  // Axis: tick labels above, grid lines through all lanes.
  out += "<g class=\"axis\" transform=\"translate(" + px(L.label_px) + ",0)\">";
  out += "<line class=\"axis-line\" x1=\"0\" x2=\"" + px(L.plot_px) + "\" y1=\"" +
         px(L.axis_px - 4) + "\" y2=\"" + px(L.axis_px - 4) + "\"/>";
  for (const Tick& t : time_ticks(total, L.ticks)) {
    const std::string x = px(static_cast<double>(t.ps) * scale);
    out += "<line class=\"grid\" x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + px(L.axis_px - 8) +
           "\" y2=\"" + px(height - 4) + "\"/>";
    out += "<text class=\"tick\" x=\"" + x + "\" y=\"" + px(L.axis_px - 12) + "\">" +
           html_escape(t.label) + "</text>";
  }
  out += "</g>";

  for (std::size_t i = 0; i < run.lanes.size(); ++i) {
    const Lane& lane = run.lanes[i];
    out += "<text class=\"lane-label\" x=\"" + px(L.label_px - 8) + "\" y=\"" +
           px(lane_y[i] + L.lane_px - 5) + "\">" + html_escape(lane.label) + "</text>";
    out += "<g class=\"lane\" data-lane=\"" + html_escape(lane.id) + "\" data-group=\"" +
           (lane.group == LaneGroup::host     ? "host"
            : lane.group == LaneGroup::engine ? "engine"
                                              : "dma") +
           "\" transform=\"translate(" + px(L.label_px) + "," + px(lane_y[i]) + ")\">";
    out += "<rect class=\"lane-bg\" width=\"" + px(L.plot_px) + "\" height=\"" + px(L.lane_px) +
           "\"/>";
    for (const PixelRect& r : fit_lane(lane.slices, total, L.plot_px)) {
      const double w = r.x1 - r.x0;
      const double h = L.lane_px * r.coverage;
      out += "<rect class=\"slice";
      if (r.aggregated) out += " agg";
      out += "\" data-op=\"" + kind_name(lane.group, r.kind) + "\" x=\"" + px(r.x0) + "\"";
      if (h < L.lane_px) out += " y=\"" + px(L.lane_px - h) + "\"";
      out += " width=\"" + px(w < 0.1 ? 0.1 : w) + "\" height=\"" + px(h) + "\"";
      if (w >= kTitleMinPx)
        out += "><title>" + html_escape(rect_title(lane, r, run)) + "</title></rect>";
      else
        out += "/>";
    }
    if (lane.group == LaneGroup::host && lane.id == "device") launch_names(out, run, scale, L);
    out += "</g>";
  }
  out += "</svg>";
  return out;
}

}  // namespace neuronsim::report
