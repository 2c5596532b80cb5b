#include "report/source_view.hpp"

#include <algorithm>
#include <map>

#include "report/html_text.hpp"
#include "traces/format.hpp"
#include "traces/source_lines.hpp"

namespace neuronsim::report {

namespace {

// Lines of text shown around the lines that have time; files longer than this show only
// those lines and their neighbours, so a report of a big file stays small.
constexpr std::size_t kWholeFileLines = 400;
constexpr std::uint32_t kContext = 2;

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    at = end + 1;
  }
  return out;
}

}  // namespace

void add_source_times(std::vector<SourceView>& sources, const isa::Kernel& k,
                      const traces::TraceData& trace) {
  if (k.sources.empty()) return;
  std::vector<std::size_t> view_of(k.sources.size());
  for (std::size_t f = 0; f < k.sources.size(); ++f) {
    auto it = std::find_if(sources.begin(), sources.end(),
                           [&](const SourceView& v) { return v.path == k.sources[f].path; });
    if (it == sources.end()) {
      sources.push_back({k.sources[f].path, k.sources[f].text, {}});
      it = sources.end() - 1;
    } else if (it->text.empty()) {
      it->text = k.sources[f].text;
    }
    view_of[f] = static_cast<std::size_t>(it - sources.begin());
  }
  for (const traces::SourceLineTime& t : traces::source_line_times(trace, k)) {
    std::vector<SourceLineStats>& lines = sources[view_of[t.location.file]].lines;
    auto it = std::lower_bound(
        lines.begin(), lines.end(), t.location.line,
        [](const SourceLineStats& s, std::uint32_t line) { return s.line < line; });
    if (it == lines.end() || it->line != t.location.line)
      it = lines.insert(it, SourceLineStats{t.location.line, 0, 0, 0});
    it->instructions += t.instructions;
    it->busy_ps += t.busy_ps;
    it->dma_ps += t.dma_ps;
  }
}

std::string source_view_html(const Run& run, std::size_t run_index) {
  if (run.sources.empty()) return "";
  std::string out =
      "<h3>Source</h3><p class=\"note\">Device time by line of the Python that traced the "
      "kernel: engine time of the line's instructions (all engines added) and the DMA engine "
      "time of the transfers it started. Click a line number to find its instructions in the "
      "viewer.</p>";
  for (const SourceView& view : run.sources) {
    std::uint64_t most = 1;
    for (const SourceLineStats& s : view.lines)
      most = std::max(most, s.busy_ps + s.dma_ps);
    const std::vector<std::string> text = split_lines(view.text);
    std::map<std::uint32_t, const SourceLineStats*> by_line;
    for (const SourceLineStats& s : view.lines)
      by_line[s.line] = &s;
    std::uint32_t last = static_cast<std::uint32_t>(text.size());
    if (!view.lines.empty()) last = std::max(last, view.lines.back().line);
    const bool whole = !text.empty() && text.size() <= kWholeFileLines;
    auto shown = [&](std::uint32_t line) {
      if (whole) return true;
      auto it = by_line.lower_bound(line > kContext ? line - kContext : 1);
      return it != by_line.end() && it->first <= line + kContext;
    };
    out += "<div class=\"source\" data-run=\"" + std::to_string(run_index) + "\" data-path=\"" +
           html_escape(view.path) + "\"><div class=\"source-path\">" + html_escape(view.path) +
           (view.text.empty() ? " (its text is not in the profile)" : "") +
           "</div><div class=\"scroll\"><table class=\"source-lines\">" +
           "<tr><th>line</th><th>instructions</th><th>engine time</th><th>DMA time</th>"
           "<th></th><th class=\"l\">code</th></tr>";
    bool gap = false;
    for (std::uint32_t line = 1; line <= last; ++line) {
      if (!shown(line)) {
        gap = true;
        continue;
      }
      if (gap)
        out += "<tr class=\"gap\"><td>...</td><td></td><td></td><td></td><td></td><td></td></tr>";
      gap = false;
      const auto it = by_line.find(line);
      const SourceLineStats* s = it == by_line.end() ? nullptr : it->second;
      const std::string code = line <= text.size() ? text[line - 1] : "";
      const std::string loc = view.path + ":" + std::to_string(line);
      out += s ? "<tr class=\"hot\" data-loc=\"" + html_escape(loc) + "\">" : std::string("<tr>");
      out += s ? "<td><a class=\"src-line\" href=\"#run-" + std::to_string(run_index) + "\">" +
                     std::to_string(line) + "</a></td>"
               : "<td>" + std::to_string(line) + "</td>";
      if (s) {
        const int width = static_cast<int>(100.0 * static_cast<double>(s->busy_ps + s->dma_ps) /
                                           static_cast<double>(most));
        out += "<td>" + std::to_string(s->instructions) + "</td><td>" +
               html_escape(traces::human_time(s->busy_ps)) + "</td><td>" +
               (s->dma_ps ? html_escape(traces::human_time(s->dma_ps)) : std::string()) +
               "</td><td><span class=\"heat\" style=\"width:" + std::to_string(width) +
               "px\"></span></td>";
      } else {
        out += "<td></td><td></td><td></td><td></td>";
      }
      out += "<td class=\"l code\">" + html_escape(code) + "</td></tr>";
    }
    if (gap)
      out += "<tr class=\"gap\"><td>...</td><td></td><td></td><td></td><td></td><td></td></tr>";
    out += "</table></div></div>";
  }
  return out;
}

}  // namespace neuronsim::report
