#include "report/svg_stalls.hpp"

#include <vector>

#include "report/html_text.hpp"
#include "traces/format.hpp"

namespace neuronsim::report {

namespace {

constexpr double kLabelPx = 150, kBarPx = 1000, kRowPx = 20, kGapPx = 6;

struct Segment {
  std::string stall;  // data-stall: the CSS colour
  std::string label;  // for people
  std::uint64_t ps = 0;
  int shade = 0;  // successive semaphore-wait sources alternate shades
};

std::vector<Segment> segments(const Run& run, const traces::EngineTime& t) {
  std::vector<Segment> s;
  s.push_back({"busy", "busy", t.busy_ps});
  int shade = 0;
  std::uint64_t attributed = 0;
  for (const auto& [who, ps] : t.semaphore_wait_by_source) {
    s.push_back({"semaphore", "semaphore wait on " + who, ps, shade++ % 3});
    attributed += ps;
  }
  if (t.semaphore_wait_ps > attributed)
    s.push_back({"semaphore", "semaphore wait", t.semaphore_wait_ps - attributed, shade % 3});
  s.push_back({"port", "port wait", t.port_wait_ps});
  s.push_back({"dma", "DMA queue wait", t.dma_wait_ps});
  s.push_back({"idle", "idle", t.idle_ps});
  if (run.total_ps > run.device.total_ps)
    s.push_back({"host", "device not running (host)", run.total_ps - run.device.total_ps});
  return s;
}

}  // namespace

std::string stall_svg(const Run& run) {
  const double width = kLabelPx + kBarPx + 20;
  const double height = isa::kEngineCount * (kRowPx + kGapPx) + 4;
  const double total = static_cast<double>(run.total_ps ? run.total_ps : 1);
  std::string out = "<svg class=\"stalls\" width=\"" + px(width) + "\" height=\"" + px(height) +
                    "\" viewBox=\"0 0 " + px(width) + " " + px(height) + "\">";
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const std::string engine(isa::engine_name(static_cast<isa::Engine>(e)));
    const double y = 2 + e * (kRowPx + kGapPx);
    out += "<text class=\"lane-label\" x=\"" + px(kLabelPx - 8) + "\" y=\"" + px(y + kRowPx - 5) +
           "\">" + engine + "</text>";
    out += "<g class=\"stall-bar\" data-engine=\"" + engine + "\" transform=\"translate(" +
           px(kLabelPx) + "," + px(y) + ")\">";
    double x = 0;
    for (const Segment& s : segments(run, run.device.engines[e])) {
      if (s.ps == 0) continue;
      const double w = kBarPx * static_cast<double>(s.ps) / total;
      const double pct = 100.0 * static_cast<double>(s.ps) / total;
      out += "<rect data-stall=\"" + s.stall + "\" data-shade=\"" + std::to_string(s.shade) +
             "\" x=\"" + px(x) + "\" width=\"" + px(w) + "\" height=\"" + px(kRowPx) +
             "\"><title>" + engine + ": " + html_escape(s.label) + " " + traces::human_time(s.ps) +
             " (" + traces::percent(pct) + ")</title></rect>";
      const std::string text = html_escape(s.label) + " " + traces::percent(pct);
      if (w > 6.5 * static_cast<double>(text.size()) + 8)
        out += std::string("<text class=\"in-slice") +
               (s.stall == "idle" || s.stall == "host" ? " dark" : "") + "\" x=\"" + px(x + w / 2) +
               "\" y=\"" + px(kRowPx - 6) + "\">" + text + "</text>";
      x += w;
    }
    out += "</g>";
  }
  return out + "</svg>";
}

}  // namespace neuronsim::report
