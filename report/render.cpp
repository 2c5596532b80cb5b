#include "report/render.hpp"

#include <set>

#include "base/error.hpp"
#include "report/explain.hpp"
#include "report/html_text.hpp"
#include "report/source_view.hpp"
#include "report/style.hpp"
#include "report/svg_stalls.hpp"
#include "report/svg_timeline.hpp"
#include "report/viewer_json.hpp"
#include "report/viewer_script.hpp"
#include "traces/format.hpp"

namespace neuronsim::report {

namespace {

using traces::fixed;
using traces::human_bytes;
using traces::human_count;
using traces::human_time;

// Launch tables longer than this are cut (the timeline still shows every launch).
constexpr std::size_t kMaxLaunchRows = 200;
constexpr std::size_t kTopOps = 8;

std::string cell(const std::string& text, bool left = false) {
  return std::string(left ? "<td class=\"l\">" : "<td>") + html_escape(text) + "</td>";
}

std::string header_row(const std::vector<std::string>& names) {
  std::string out = "<tr>";
  for (const auto& n : names)
    out += "<th>" + html_escape(n) + "</th>";
  return out + "</tr>";
}

std::string pct_of(std::uint64_t part, std::uint64_t whole) {
  return whole ? traces::percent(100.0 * static_cast<double>(part) / static_cast<double>(whole))
               : "-";
}

std::string mfu_text(const Run& run, const RunFacts& f) {
  return run.peak_flops_per_s > 0 ? fixed(f.mfu_percent, 2) + "%" : "-";
}

std::string swatch(const std::string& op_attr, const std::string& label) {
  return "<span><svg width=\"14\" height=\"12\"><rect " + op_attr +
         " width=\"14\" height=\"12\" rx=\"2\"/></svg>" + html_escape(label) + "</span>";
}

// Labels without the directory all of them share, so that the tables stay narrow.
std::vector<std::string> short_labels(const std::vector<Run>& runs) {
  std::vector<std::string> labels;
  for (const Run& r : runs)
    labels.push_back(r.label);
  if (runs.size() < 2) return labels;
  std::size_t common = labels[0].size();
  for (const auto& l : labels) {
    std::size_t n = 0;
    while (n < common && n < l.size() && l[n] == labels[0][n])
      ++n;
    common = n;
  }
  if (common == 0) return labels;
  const std::size_t slash = labels[0].rfind('/', common - 1);
  if (slash == std::string::npos) return labels;
  std::vector<std::string> shorter;
  for (const auto& l : labels) {
    if (l.size() <= slash + 1) return labels;
    shorter.push_back(l.substr(slash + 1));
  }
  return shorter;
}

std::string comparison(const std::vector<Run>& runs, const std::vector<std::string>& labels,
                       const std::vector<RunFacts>& facts) {
  std::string out =
      "<h2 id=\"comparison\">Runs compared</h2><div class=\"scroll\"><table class=\"comparison\">";
  out += header_row({"profile", "program", "mode", "launches", "total time", "speedup vs first",
                     "device time", "dispatch gap", "HBM bytes", "round trips", "DMA transfers",
                     "DMA active", "busiest engine", "MFU", "bound"});
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i];
    const RunFacts& f = facts[i];
    const double speed =
        f.total_ps ? static_cast<double>(facts[0].total_ps) / static_cast<double>(f.total_ps) : 0;
    out += "<tr>" + cell(labels[i], true) + cell(r.program, true) +
           cell(r.sequence ? r.mode : "single kernel", true) + cell(std::to_string(f.launches)) +
           cell(human_time(f.total_ps)) + cell(fixed(speed, 2) + "x") +
           cell(human_time(f.device_ps)) + cell(human_time(f.dispatch_gap_ps)) +
           cell(human_bytes(f.hbm_bytes)) + cell(r.io_bytes ? fixed(f.round_trips, 2) : "-") +
           cell(std::to_string(r.device.dma_transfer_count)) + cell(human_time(f.dma_active_ps)) +
           cell(std::string(isa::engine_name(f.busiest)) + " " + human_time(f.busiest_busy_ps)) +
           cell(mfu_text(r, f)) + "<td class=\"l bound\">" + html_escape(bound_text(f)) +
           "</td></tr>";
  }
  return out + "</table></div>";
}

std::string list(const std::vector<std::string>& items) {
  std::string out = "<ul class=\"explain\">";
  for (const auto& s : items)
    out += "<li>" + html_escape(s) + "</li>";
  return out + "</ul>";
}

std::string explain(const std::vector<Run>& runs, const std::vector<std::string>& labels,
                    const std::vector<RunFacts>& facts) {
  std::string out = "<h2 id=\"explain\">Explain: why the runs differ</h2>";
  for (std::size_t i = 1; i < runs.size(); ++i) {
    out += "<h3>" + html_escape(labels[i]) + " against " + html_escape(labels[0]) + "</h3>";
    out += list(explain_against(runs[0], facts[0], runs[i], facts[i]));
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    out += "<h3>" + html_escape(labels[i]) + "</h3>";
    out += list(explain_run(runs[i], facts[i]));
  }
  return out;
}

std::string legend(const std::vector<Run>& runs) {
  std::set<std::pair<int, std::uint16_t>> used;
  for (const Run& r : runs)
    for (const Lane& lane : r.lanes)
      for (const Slice& s : lane.slices)
        used.insert({static_cast<int>(lane.group), s.kind});
  std::string out = "<div class=\"legend\" id=\"legend\">";
  for (const auto& [group, kind] : used) {
    const auto g = static_cast<LaneGroup>(group);
    out += swatch("data-op=\"" + kind_name(g, kind) + "\"", kind_label(g, kind));
  }
  out += "</div><div class=\"legend\">";
  out += swatch("data-stall=\"busy\"", "busy");
  out += swatch("data-stall=\"semaphore\"", "semaphore wait (shades: by whom)");
  out += swatch("data-stall=\"port\"", "port wait");
  out += swatch("data-stall=\"dma\"", "DMA queue wait");
  out += swatch("data-stall=\"idle\"", "idle");
  out += swatch("data-stall=\"host\"", "device not running (host)");
  return out + "</div>";
}

std::string summary_tables(const Run& run, const RunFacts& f) {
  const traces::Summary& s = run.device;
  const int hbm = static_cast<int>(isa::MemSpace::hbm);
  std::string out = "<div class=\"grid2\"><table class=\"summary\">";
  const auto row = [&](const std::string& k, const std::string& v) {
    out += "<tr>" + cell(k, true) + cell(v) + "</tr>";
  };
  row(run.sequence ? "program" : "kernel", run.program);
  row("target", run.target);
  if (run.sequence) row("mode", run.mode);
  row("total time (end to end)", human_time(f.total_ps));
  if (run.sequence) {
    row("device time (sum)", human_time(f.device_ps));
    row("dispatch gap",
        human_time(f.dispatch_gap_ps) + " (" + pct_of(f.dispatch_gap_ps, f.total_ps) + ")");
    row("launches", std::to_string(f.launches));
  }
  row("HBM read", human_bytes(s.memory.read[hbm]));
  row("HBM written", human_bytes(s.memory.written[hbm]));
  row("round trips",
      run.io_bytes ? fixed(f.round_trips, 2) + " of " + human_bytes(run.io_bytes) : "-");
  row("DMA transfers",
      std::to_string(s.dma_transfer_count) + " (" + human_bytes(s.dma_transfer_total_bytes) + ")");
  row("DMA active",
      human_time(s.dma_active_ps) + " (" + pct_of(s.dma_active_ps, f.device_ps) + " of device)");
  row("model flops", human_count(static_cast<double>(s.model_flops)));
  row("MFU", mfu_text(run, f));
  row("bound", bound_text(f));
  out += "</table><table class=\"engines\">";
  out += header_row({"engine", "instructions", "active time", "% of device time"});
  for (int e = 0; e < isa::kEngineCount; ++e) {
    const traces::EngineTime& t = s.engines[e];
    out += "<tr>" + cell(std::string(isa::engine_name(static_cast<isa::Engine>(e))), true) +
           cell(std::to_string(t.instruction_count)) + cell(human_time(t.busy_ps)) +
           cell(pct_of(t.busy_ps, f.device_ps)) + "</tr>";
  }
  out += "<tr>" + cell("dma", true) + cell(std::to_string(s.dma_transfer_count) + " pieces") +
         cell(human_time(s.dma_active_ps)) + cell(pct_of(s.dma_active_ps, f.device_ps)) +
         "</tr></table>";
  out += "<table class=\"ops\">";
  out += header_row({"engine", "opcode", "count", "total", "% of instr. time"});
  for (std::size_t i = 0; i < s.ops.size() && i < kTopOps; ++i) {
    const traces::OpStats& op = s.ops[i];
    out += "<tr>" + cell(std::string(isa::engine_name(op.engine)), true) +
           cell(std::string(isa::opcode_name(op.opcode)), true) + cell(std::to_string(op.count)) +
           cell(human_time(op.total_ps)) + cell(traces::percent(op.percent)) + "</tr>";
  }
  return out + "</table></div>";
}

std::string launch_table(const Run& run) {
  std::string out = "<h3>Launches</h3><table class=\"launches\">";
  out += header_row({"#", "launch", "op", "framework dispatch", "runtime call", "device start",
                     "device time", "HBM bytes", "DMA active", "busiest engine"});
  const int hbm = static_cast<int>(isa::MemSpace::hbm);
  for (std::size_t i = 0; i < run.launches.size() && i < kMaxLaunchRows; ++i) {
    const RunLaunch& l = run.launches[i];
    const traces::Summary& s = l.summary;
    int busiest = 0;
    for (int e = 1; e < isa::kEngineCount; ++e)
      if (s.engines[e].busy_ps > s.engines[busiest].busy_ps) busiest = e;
    out += "<tr>" + cell(std::to_string(i)) + cell(l.name, true) + cell(l.op, true) +
           cell(human_time(l.framework_dispatch.duration_ps())) +
           cell(human_time(l.runtime_call.duration_ps())) + cell(human_time(l.device.start_ps)) +
           cell(human_time(l.device.duration_ps())) +
           cell(human_bytes(s.memory.read[hbm] + s.memory.written[hbm])) +
           cell(human_time(s.dma_active_ps)) +
           cell(std::string(isa::engine_name(static_cast<isa::Engine>(busiest))) + " " +
                human_time(s.engines[busiest].busy_ps)) +
           "</tr>";
  }
  out += "</table>";
  if (run.launches.size() > kMaxLaunchRows)
    out += "<p class=\"note\">First " + std::to_string(kMaxLaunchRows) + " of " +
           std::to_string(run.launches.size()) + " launches.</p>";
  if (!run.host_model.empty()) {
    out += "<h3>Host model</h3><table class=\"host-model\">";
    for (const auto& [name, value] : run.host_model)
      out += "<tr>" + cell(name, true) + cell(value) + "</tr>";
    out += "</table>";
  }
  return out;
}

// The interactive viewer of one run: toolbar, canvas, details pane, and its data.
std::string viewer_section(const Run& run, std::size_t index) {
  const std::string id = std::to_string(index);
  std::string out = "<h3>Viewer</h3><div class=\"viewer\" data-run=\"" + id + "\">";
  out +=
      "<div class=\"bar\"><input type=\"search\" placeholder=\"search: opcode, line N, "
      "file.py:N\" aria-label=\"search by opcode, assembly line or Python line\"><button "
      "class=\"prev\" "
      "type=\"button\">&#9664;</button><button class=\"next\" type=\"button\">&#9654;</button>"
      "<span class=\"matches\"></span><label><input type=\"checkbox\" class=\"critical\"> "
      "critical path</label><span class=\"crit-info\"></span><button class=\"reset\" "
      "type=\"button\">reset zoom</button>"
      "<span class=\"span\"></span></div>";
  out += "<canvas tabindex=\"0\" aria-label=\"interactive timeline of " + html_escape(run.label) +
         "\"></canvas>";
  out +=
      "<div class=\"details\"><span class=\"hint\">Wheel: zoom around the cursor. Drag: pan. "
      "Click a slice for its details. Keys on the timeline: + and - zoom, arrows pan, 0 "
      "resets.</span></div></div>";
  out += "<script type=\"application/json\" id=\"viewer-data-" + id + "\">" + viewer_json(run) +
         "</script>";
  return out;
}

std::string insights_html(const Run& run) {
  if (run.insights.empty()) return "";
  std::string out =
      "<h3>Insights</h3><p class=\"note\">Ranked by the speedup measured by re-simulating the "
      "kernels with that one thing relieved (docs/whatif.md).</p><ol class=\"explain\">";
  for (const InsightLine& in : run.insights) {
    out += "<li><b>" + html_escape(in.speedup) + "</b> " + html_escape(in.title);
    if (!in.where.empty()) out += "<br>at: " + html_escape(in.where);
    out += "<br>try: " + html_escape(in.advice) + "<br>measured: " + html_escape(in.measured) +
           "</li>";
  }
  return out + "</ol>";
}

std::string run_section(const Run& run, const std::string& label, const RunFacts& f,
                        std::size_t index) {
  std::string out =
      "<section class=\"run\" id=\"run-" + std::to_string(index) + "\"><h2>" + html_escape(label) +
      "</h2><p class=\"sub\">" + html_escape(run.label) + ": " + html_escape(run.program) + " on " +
      html_escape(run.target) + ", " +
      (run.sequence ? html_escape(run.mode) + " launch sequence" : std::string("single kernel")) +
      ": " + html_escape(human_time(f.total_ps)) + ", " + html_escape(bound_text(f)) + "</p>";
  out += insights_html(run);
  out += "<h3>Timeline</h3>" + timeline_svg(run);
  out +=
      "<p class=\"note\">The whole run. Slices narrower than a pixel are summed per pixel "
      "column: the bar's colour is the kind that took most of the column, its height the "
      "share of the column's time in use. Hover a slice for details.</p>";
  out += viewer_section(run, index);
  out += source_view_html(run, index);
  out += "<h3>Stall attribution</h3>" + stall_svg(run);
  out += "<h3>Summary</h3>" + summary_tables(run, f);
  if (run.sequence) out += launch_table(run);
  return out + "</section>";
}

}  // namespace

std::string render_report(const std::vector<Run>& runs) {
  if (runs.empty()) throw Error("report: no profiles given");
  std::vector<RunFacts> facts;
  for (const Run& r : runs)
    facts.push_back(run_facts(r));
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      "<title>neuronsim report</title><style>" +
      report_css() + viewer_css() + "</style></head><body>\n";
  out += "<h1>neuronsim report</h1><p class=\"sub\">" + std::to_string(runs.size()) +
         (runs.size() == 1 ? " profile" : " profiles") +
         "; times are simulated. The first profile is the baseline.</p>\n";
  const std::vector<std::string> labels = short_labels(runs);
  out += comparison(runs, labels, facts) + "\n";
  out += explain(runs, labels, facts) + "\n";
  out += "<h2 id=\"legend-title\">Legend</h2>" + legend(runs) + "\n";
  for (std::size_t i = 0; i < runs.size(); ++i)
    out += run_section(runs[i], labels[i], facts[i], i) + "\n";
  return out + "<script>" + viewer_script() + "</script></body></html>\n";
}

}  // namespace neuronsim::report
