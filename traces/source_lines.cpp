#include "traces/source_lines.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "traces/format.hpp"
#include "traces/text_sink.hpp"

namespace neuronsim::traces {

namespace {

isa::SourceLocation location_of(const isa::Kernel& k, isa::Engine e, std::uint32_t index) {
  const isa::InstructionStream& s = k.stream(e);
  return index < s.size() ? s.location(index) : isa::SourceLocation{};
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

std::vector<SourceLineTime> source_line_times(const TraceData& t, const isa::Kernel& k) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, SourceLineTime> rows;
  if (!k.has_locations()) return {};
  for (const InstructionRecord& r : t.instructions) {
    const isa::SourceLocation loc = location_of(k, r.engine, r.index);
    if (!loc.known()) continue;
    SourceLineTime& row = rows[{loc.file, loc.line}];
    const std::uint64_t ps = r.end_ps >= r.start_ps ? r.end_ps - r.start_ps : 0;
    if (row.instructions == 0 || r.start_ps < row.first_start_ps) row.first_start_ps = r.start_ps;
    row.location = loc;
    ++row.instructions;
    row.busy_ps += ps;
    row.engine_ps[static_cast<std::size_t>(r.engine)] += ps;
  }
  for (const DmaRecord& d : t.dmas) {
    const isa::SourceLocation loc = location_of(k, d.issuer, d.issuer_index);
    if (!loc.known()) continue;
    auto it = rows.find({loc.file, loc.line});
    if (it != rows.end()) it->second.dma_ps += d.end_ps >= d.start_ps ? d.end_ps - d.start_ps : 0;
  }
  std::vector<SourceLineTime> out;
  out.reserve(rows.size());
  for (auto& [key, row] : rows)
    out.push_back(row);
  return out;
}

std::string location_text(const isa::Kernel& k, isa::SourceLocation loc) {
  if (!loc.known() || loc.file >= k.sources.size()) return "";
  return k.sources[loc.file].path + ":" + std::to_string(loc.line);
}

bool location_matches(const isa::Kernel& k, isa::SourceLocation loc, const std::string& pattern) {
  if (!loc.known() || loc.file >= k.sources.size() || pattern.empty()) return false;
  const std::string& path = k.sources[loc.file].path;
  if (ends_with(path, pattern)) return true;
  return ends_with(location_text(k, loc), pattern) &&
         (pattern[0] == ':' || pattern.size() > std::to_string(loc.line).size() + 1);
}

std::string text_line(const std::string& text, std::uint32_t line) {
  std::size_t at = 0;
  for (std::uint32_t n = 1; n < line; ++n) {
    at = text.find('\n', at);
    if (at == std::string::npos) return "";
    ++at;
  }
  if (at >= text.size()) return "";
  const std::size_t end = std::min(text.find('\n', at), text.size());
  std::string s = text.substr(at, end - at);
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

std::string source_lines_text(const std::vector<SourceLineTime>& rows, const isa::Kernel& k,
                              std::uint64_t device_ps, std::size_t top) {
  if (rows.empty()) return "";
  std::vector<const SourceLineTime*> order;
  for (const SourceLineTime& r : rows)
    order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->busy_ps + a->dma_ps > b->busy_ps + b->dma_ps;
  });
  TextTable table(
      {"source line", "code", "instructions", "engine time", "share", "DMA engine time"}, 2);
  for (std::size_t i = 0; i < order.size() && i < top; ++i) {
    const SourceLineTime& r = *order[i];
    std::string code = text_line(k.sources[r.location.file].text, r.location.line);
    code.erase(0, std::min(code.find_first_not_of(" \t"), code.size()));
    if (code.size() > 60) code = code.substr(0, 57) + "...";
    table.row(
        {location_text(k, r.location), code, std::to_string(r.instructions), human_time(r.busy_ps),
         device_ps
             ? percent(100.0 * static_cast<double>(r.busy_ps) / static_cast<double>(device_ps))
             : "-",
         human_time(r.dma_ps)});
  }
  return "\nby source line (" + std::to_string(std::min(top, rows.size())) + " of " +
         std::to_string(rows.size()) +
         " lines; engine time summed over engines, DMA time over DMA engines)\n" + table.str("  ");
}

std::string source_lines_json(const std::vector<SourceLineTime>& rows, const isa::Kernel& k) {
  std::string s = "[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SourceLineTime& r = rows[i];
    s += i ? ",\n  " : "\n  ";
    s += "{\"source\":" + json_string(location_text(k, r.location)) +
         ",\"file\":" + json_string(k.sources[r.location.file].path) +
         ",\"line\":" + std::to_string(r.location.line) +
         ",\"instructions\":" + std::to_string(r.instructions) +
         ",\"busy_ns\":" + ps_as_ns(r.busy_ps) + ",\"dma_ns\":" + ps_as_ns(r.dma_ps) +
         ",\"engines_ns\":{";
    for (int e = 0; e < isa::kEngineCount; ++e)
      s += (e ? "," : "") + json_string(isa::engine_name(static_cast<isa::Engine>(e))) + ":" +
           ps_as_ns(r.engine_ps[static_cast<std::size_t>(e)]);
    s += "}}";
  }
  return s + (rows.empty() ? "]" : "\n]");
}

}  // namespace neuronsim::traces
