#include "sequence/sequence_view.hpp"

#include <cmath>
#include <filesystem>

#include "base/error.hpp"
#include "profile/directory.hpp"
#include "traces/format.hpp"

namespace neuronsim::sequence {

namespace fs = std::filesystem;

namespace {

std::uint64_t ns_to_ps(double ns) {
  return static_cast<std::uint64_t>(std::llround(ns * 1000.0));
}

double share(double part, double whole) {
  return whole > 0 ? 100.0 * part / whole : 0.0;
}

}  // namespace

SequenceProfile open_sequence_profile(const std::string& dir) {
  SequenceProfile p;
  p.dir = dir;
  p.host = profile::read_host_trace(dir);
  for (const auto& l : p.host.launches) {
    const std::string launch_dir = (fs::path(dir) / l.profile).string();
    const profile::Profile profile = profile::open_profile(launch_dir);
    traces::SummaryOptions options;
    options.kernel = &profile.neff.kernel;
    p.launches.push_back(traces::summarize_ntff(profile.ntff_path, options));
    p.launch_dirs.push_back(launch_dir);
    const std::uint64_t recorded = ns_to_ps(l.timing.device_ns);
    const std::uint64_t traced = p.launches.back().total_ps;
    if (recorded != traced)
      throw Error(dir + "/" + profile::kHostTraceFile + ": launch '" + l.name + "' took " +
                  traces::ps_as_ns(recorded) + " ns on the device but its trace " +
                  profile.ntff_path + " lasts " + traces::ps_as_ns(traced) +
                  " ns (mismatched launch profile)");
  }
  return p;
}

std::vector<OpRow> op_rows(const profile::HostTrace& host) {
  std::vector<OpRow> rows;
  for (const auto& l : host.launches) {
    auto it = rows.begin();
    while (it != rows.end() && it->op != l.op)
      ++it;
    if (it == rows.end()) {
      rows.push_back({l.op});
      it = rows.end() - 1;
    }
    ++it->launches;
    it->host_ns += l.timing.host_ns;
    it->device_ns += l.timing.device_ns;
  }
  return rows;
}

std::string sequence_view_text(const SequenceProfile& p) {
  const profile::HostTrace& h = p.host;
  std::string out = "sequence profile " + p.dir + ": program " + h.program + " (" + h.mode +
                    ") on " + h.target + ", " + std::to_string(h.launches.size()) + " launches\n\n";
  traces::TextTable ops(
      {"op", "launches", "host time", "device time", "device %", "share of total"});
  for (const OpRow& r : op_rows(h))
    ops.row({r.op, std::to_string(r.launches), traces::human_time(ns_to_ps(r.host_ns)),
             traces::human_time(ns_to_ps(r.device_ns)),
             traces::percent(share(r.device_ns, r.host_ns + r.device_ns)),
             traces::percent(share(r.device_ns, h.total_ns))});
  out += ops.str();
  out += "\n";
  traces::TextTable totals({"total", "time", "of end to end"});
  totals.row({"end to end", traces::human_time(ns_to_ps(h.total_ns)), "100.0%"});
  totals.row({"device", traces::human_time(ns_to_ps(h.device_ns)),
              traces::percent(share(h.device_ns, h.total_ns))});
  totals.row({"host (dispatch + runtime)", traces::human_time(ns_to_ps(h.host_ns())),
              traces::percent(share(h.host_ns(), h.total_ns))});
  totals.row({"dispatch gaps (device idle)", traces::human_time(ns_to_ps(h.total_ns - h.device_ns)),
              traces::percent(share(h.total_ns - h.device_ns, h.total_ns))});
  out += totals.str();
  out += "\n";
  traces::TextTable launches({"#", "launch", "op", "dispatch start", "device start", "device",
                              "instructions", "hbm bytes"});
  for (std::size_t i = 0; i < h.launches.size(); ++i) {
    const auto& l = h.launches[i];
    const traces::Summary& s = p.launches[i];
    std::uint64_t instructions = 0;
    for (const auto& e : s.engines)
      instructions += e.instruction_count;
    launches.row({std::to_string(i), l.name, l.op,
                  traces::human_time(ns_to_ps(l.timing.framework_dispatch.start_ns)),
                  traces::human_time(ns_to_ps(l.timing.device.start_ns)),
                  traces::human_time(s.total_ps), std::to_string(instructions),
                  traces::human_bytes(s.memory.read[0] + s.memory.written[0])});
  }
  out += launches.str(),
      out += "\nEach launch's own profile: neuronsim view " + p.dir + "/launch_NNN\n";
  return out;
}

nlohmann::ordered_json sequence_view_json(const SequenceProfile& p) {
  const profile::HostTrace& h = p.host;
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const OpRow& r : op_rows(h))
    ops.push_back({{"op", r.op},
                   {"launches", r.launches},
                   {"host_ns", r.host_ns},
                   {"device_ns", r.device_ns},
                   {"device_percent", share(r.device_ns, r.host_ns + r.device_ns)},
                   {"share_of_total_percent", share(r.device_ns, h.total_ns)}});
  nlohmann::ordered_json launches = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < h.launches.size(); ++i)
    launches.push_back({{"index", i},
                        {"name", h.launches[i].name},
                        {"op", h.launches[i].op},
                        {"profile", h.launches[i].profile},
                        {"host_ns", h.launches[i].timing.host_ns},
                        {"device_ns", h.launches[i].timing.device_ns},
                        {"summary", traces::summary_fields_json(p.launches[i])}});
  return {{"program", h.program},
          {"units", traces::kJsonUnits},
          {"mode", h.mode},
          {"target", h.target},
          {"host_model", h.host_model},
          {"total_ns", h.total_ns},
          {"device_ns", h.device_ns},
          {"host_ns", h.host_ns()},
          {"dispatch_gap_ns", h.total_ns - h.device_ns},
          {"ops", ops},
          {"launches", launches}};
}

traces::Summary combined_summary(const SequenceProfile& p) {
  traces::Summary c;
  c.info.kernel_name =
      p.host.program + " (" + std::to_string(p.host.launches.size()) + " launches)";
  c.info.target = p.host.target;
  if (!p.launches.empty()) {
    c.info.engine_ghz = p.launches.front().info.engine_ghz;
    c.info.cycle_counter_ghz = p.launches.front().info.cycle_counter_ghz;
  }
  c.total_ps = ns_to_ps(p.host.total_ns);
  c.info.total_ps = c.total_ps;
  for (const traces::Summary& s : p.launches) {
    for (int e = 0; e < isa::kEngineCount; ++e) {
      c.engines[e].instruction_count += s.engines[e].instruction_count;
      c.engines[e].busy_ps += s.engines[e].busy_ps;
      c.engines[e].semaphore_wait_ps += s.engines[e].semaphore_wait_ps;
      c.engines[e].port_wait_ps += s.engines[e].port_wait_ps;
      c.engines[e].dma_wait_ps += s.engines[e].dma_wait_ps;
      c.engines[e].throttled_ps += s.engines[e].throttled_ps;
    }
    c.dma_active_ps += s.dma_active_ps;
    c.dma_transfer_total_bytes += s.dma_transfer_total_bytes;
    c.dma_transfer_count += s.dma_transfer_count;
    for (int m = 0; m < 3; ++m) {
      c.memory.read[m] += s.memory.read[m];
      c.memory.written[m] += s.memory.written[m];
    }
    c.model_flops += s.model_flops;
    c.hardware_flops += s.hardware_flops;
    c.device_time_ps += s.device_time_ps;
  }
  for (auto& e : c.engines) {
    const std::uint64_t used = e.busy_ps + e.semaphore_wait_ps + e.port_wait_ps + e.dma_wait_ps;
    e.idle_ps = c.total_ps > used ? c.total_ps - used : 0;
  }
  const double ghz = c.info.cycle_counter_ghz;
  c.neuroncore_cycle_count =
      static_cast<std::uint64_t>(std::llround(static_cast<double>(c.total_ps) * ghz / 1000.0));
  return c;
}

}  // namespace neuronsim::sequence
