#include "whatif/output.hpp"

#include <sstream>

#include "traces/format.hpp"
#include "whatif/instruction_text.hpp"

namespace neuronsim::whatif {

std::string kind_name(ResourceKind k) {
  switch (k) {
    case ResourceKind::engine:
      return "engine";
    case ResourceKind::dma:
      return "dma";
    case ResourceKind::hbm:
      return "hbm";
    case ResourceKind::port:
      return "port";
    case ResourceKind::host:
      return "host";
    case ResourceKind::semaphore:
      return "semaphore";
  }
  return "?";  // unreachable: every kind is handled above
}

std::string ranking_text(const Result& r) {
  std::ostringstream out;
  out << "whatif " << r.source << " on " << r.target << ": "
      << (r.sequence ? std::to_string(r.launches) + (r.launches == 1 ? " launch" : " launches") +
                           ", end to end "
                     : "device time ")
      << traces::fixed(r.baseline_ns, 3) << " ns";
  if (r.sequence) out << " (device " << traces::fixed(r.device_ns, 3) << " ns)";
  out << "; " << r.ranking.size() << " reliefs, " << r.simulated_launches
      << " launches simulated, timing only (docs/whatif.md)\n\n";
  // Right-aligned numbers; the resource and relief columns left-aligned after them would
  // need a left-aligned tail, so they come first.
  traces::TextTable table(
      {"resource", "relief", "rank", "time ns", "speedup", "busy", "waits caused"}, 2);
  std::size_t rank = 0;
  for (const Row& row : r.ranking) {
    ++rank;
    const bool ok = row.error.empty();
    table.row({row.resource, row.relief, std::to_string(rank),
               ok ? traces::fixed(row.time_ns, 3) : "failed",
               ok ? traces::fixed(row.speedup, 3) + "x" : "-",
               row.busy_share >= 0 ? share_text(row.busy_share) : "-",
               row.waits_caused_ns > 0 ? traces::human_time(static_cast<std::uint64_t>(
                                             row.waits_caused_ns * 1000.0 + 0.5))
                                       : "-"});
  }
  out << table.str() << "\n";
  rank = 0;
  for (const Row& row : r.ranking) {
    out << ++rank << ". " << row.resource << ", " << row.relief << "\n";
    if (!row.where.empty()) out << "   at:   " << row.where << "\n";
    out << "   set:  " << row.change << "\n";
    if (!row.role.empty()) out << "   here: " << row.role << "\n";
    if (!row.unused.empty())
      out << "   not simulated: " << row.unused << " (the baseline's time, exactly)\n";
    if (!row.error.empty()) out << "   failed: " << row.error << "\n";
  }
  out << insights_text(r.insights);
  return out.str();
}

std::string insights_text(const std::vector<Insight>& insights) {
  if (insights.empty()) return "";
  std::ostringstream out;
  out << "\ninsights, by measured speedup (each re-simulated with that one thing relieved):\n";
  std::size_t rank = 0;
  for (const Insight& in : insights) {
    out << ++rank << ". "
        << (in.error.empty() ? traces::fixed(in.speedup, 3) + "x" : std::string("failed")) << "  "
        << in.title << "\n";
    if (!in.where.empty()) out << "   at:  " << in.where << "\n";
    out << "   try: " << in.advice << "\n";
    out << "   measured: " << in.measured_by;
    if (in.error.empty()) out << ": " << traces::fixed(in.time_ns, 3) << " ns";
    out << "\n";
    if (!in.error.empty()) out << "   failed: " << in.error << "\n";
  }
  return out.str();
}

nlohmann::ordered_json insights_json(const std::vector<Insight>& insights) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Insight& in : insights) {
    nlohmann::ordered_json o;
    o["kind"] = in.kind;
    o["title"] = in.title;
    o["where"] = in.where;
    o["try"] = in.advice;
    o["measured_by"] = in.measured_by;
    o["time_ns"] = in.time_ns;
    o["speedup"] = in.speedup;
    if (!in.error.empty()) o["error"] = in.error;
    list.push_back(o);
  }
  return list;
}

nlohmann::ordered_json ranking_json(const Result& r) {
  nlohmann::ordered_json j;
  j["source"] = r.source;
  j["target"] = r.target;
  j["sequence"] = r.sequence;
  j["launches"] = r.launches;
  j["baseline_ns"] = r.baseline_ns;
  j["device_ns"] = r.device_ns;
  j["simulated_launches"] = r.simulated_launches;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Row& row : r.ranking) {
    nlohmann::ordered_json o;
    o["resource"] = row.resource;
    o["relief"] = row.relief;
    o["kind"] = kind_name(row.kind);
    o["time_ns"] = row.time_ns;
    o["speedup"] = row.speedup;
    o["change"] = row.change;
    if (!row.where.empty()) o["where"] = row.where;
    if (row.busy_share >= 0) o["busy_share"] = row.busy_share;
    o["waits_caused_ns"] = row.waits_caused_ns;
    o["role"] = row.role;
    if (!row.unused.empty()) o["not_simulated"] = row.unused;
    if (!row.error.empty()) o["error"] = row.error;
    rows.push_back(o);
  }
  j["ranking"] = rows;
  j["insights"] = insights_json(r.insights);
  return j;
}

}  // namespace neuronsim::whatif
