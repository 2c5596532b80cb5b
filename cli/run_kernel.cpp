// `neuronsim run K.neff`: one kernel on one core, its time per engine, the host model
// around it, and a profile if asked (cli/run.hpp).
#include <iostream>
#include <memory>
#include <string>

#include "cli/progress.hpp"
#include "cli/run.hpp"
#include "engines/sim_time.hpp"
#include "profile/profiled_run.hpp"
#include "sequence/host_model.hpp"
#include "sim/stats_json.hpp"
#include "traces/format.hpp"

namespace neuronsim::cli {

namespace {

void print_summary(const isa::Kernel& k, const config::TargetConfig& cfg, const RunResult& r,
                   std::ostream& out) {
  out << "kernel " << k.name << " on " << cfg.name << " (" << cfg.generation << ")"
      << (r.outputs.empty() ? ", timing only" : "") << "\n";
  out << "total: " << fixed(r.total_ns) << " ns = " << r.neuroncore_cycle_count
      << " neuroncore cycles " << traces::cycle_counter_text(cfg.cycle_counter_ghz) << "\n";
  out << "in each engine's clock:";
  for (const auto& e : r.stats.engines)
    out << " " << isa::engine_name(e.engine) << " "
        << r.stats.core.clock_cycles[static_cast<int>(e.engine)] << " @ " << fixed(e.clock_ghz, 2)
        << " GHz;";
  out << "\n\n";
  const std::vector<std::string> head = {"engine",      "instr",        "busy ns",       "busy %",
                                         "sem wait ns", "port wait ns", "dma-q wait ns", "idle ns"};
  const std::vector<std::size_t> width = {6, 8, 14, 7, 14, 14, 14, 14};
  for (std::size_t i = 0; i < head.size(); ++i)
    out << (i == 0 ? head[i] + std::string(width[0] - head[0].size(), ' ')
                   : pad(head[i], width[i]));
  out << "\n";
  for (const auto& e : r.stats.engines) {
    const std::string name(isa::engine_name(e.engine));
    const traces::EngineTime& t = e.time;
    const double busy_ns = engines::ps_to_ns(t.busy_ps);
    const double pct = r.total_ns > 0 ? 100.0 * busy_ns / r.total_ns : 0.0;
    out << name << std::string(width[0] - name.size(), ' ')
        << pad(std::to_string(t.instruction_count), width[1]) << pad(fixed(busy_ns), width[2])
        << pad(fixed(pct, 1), width[3])
        << pad(fixed(engines::ps_to_ns(t.semaphore_wait_ps)), width[4])
        << pad(fixed(engines::ps_to_ns(t.port_wait_ps)), width[5])
        << pad(fixed(engines::ps_to_ns(t.dma_wait_ps)), width[6])
        << pad(fixed(engines::ps_to_ns(t.idle_ps)), width[7]) << "\n";
  }
  const traces::EngineTime& tensor = r.stats.engines[static_cast<int>(isa::Engine::tensor)].time;
  if (tensor.throttled_ps)
    out << "tensor busy includes " << fixed(engines::ps_to_ns(tensor.throttled_ps))
        << " ns of throttle (the PE array below full rate, docs/cost-model.md)\n";
  out << "\nDMA: " << r.stats.dma.transfers << " transfers, " << r.stats.dma.bytes
      << " bytes; HBM read " << r.stats.hbm.read_bytes << " bytes, written "
      << r.stats.hbm.write_bytes << " bytes\n";
}

// A single NEFF is a one-launch program: the host model's overheads are reported beside
// the kernel's time, never added to it.
void print_host_model(const config::TargetConfig& cfg, const RunResult& r, std::ostream& out) {
  const profile::HostTimeline t = sequence::schedule_launches(cfg.host, {r.total_ns});
  const profile::LaunchTiming& l = t.launches.front();
  out << "\nhost model (" << cfg.name << ", " << (cfg.host.async ? "async" : "sync")
      << ", docs/host-model.md): framework dispatch " << fixed(l.framework_dispatch.length())
      << " ns + runtime call " << fixed(l.runtime_call.length()) << " ns + device "
      << fixed(l.device.length()) << " ns + sync " << fixed(cfg.host.sync_ns) << " ns = end to end "
      << fixed(t.total_ns) << " ns (device "
      << fixed(t.total_ns > 0 ? 100.0 * t.device_ns / t.total_ns : 0.0, 1) << "%)\n";
}

}  // namespace

void run_kernel_mode(const RunArgs& args, const KernelRun& run) {
  const isa::Kernel& k = run.kernel();
  const config::TargetConfig& cfg = run.cfg;
  RunOptions options = run.options;
  auto progress = Progress::wanted(args.quiet) ? std::make_unique<Progress>(1) : nullptr;
  if (progress) options.observers.push_back(progress->observer(0));
  RunResult r;
  profile::ProfiledRun profiled;
  if (args.profile_dir.empty()) {
    r = run_kernel(k, cfg, run.inputs, options, args.neff_path);
  } else {
    profiled = profile::run_profiled(run.neff_bytes, run.file, cfg, run.inputs, options,
                                     args.neff_path, args.profile_dir);
    r = std::move(profiled.result);
  }
  progress.reset();  // clears its line before the summary
  if (!args.stats_json.empty()) {
    nlohmann::ordered_json doc = stats_document("kernel", k.name, cfg, args);
    doc["stats"] = sim::stats_json(r.stats);
    write_stats(args.stats_json, doc);
  }
  write_outputs(k, r, args, std::cout);
  print_summary(k, cfg, r, std::cout);
  print_host_model(cfg, r, std::cout);
  if (!args.profile_dir.empty()) {
    auto per = [&](std::uint64_t n) {
      return fixed(n ? static_cast<double>(profiled.trace_bytes) / static_cast<double>(n) : 0.0, 1);
    };
    std::cout << "profile: " << profiled.neff_path << ", " << profiled.ntff_path << " ("
              << profiled.trace_bytes << " bytes: " << profiled.trace_instructions
              << " instructions, " << profiled.trace_records << " records in all; "
              << per(profiled.trace_instructions) << " bytes per instruction, "
              << per(profiled.trace_records) << " per record)\n";
  }
}

}  // namespace neuronsim::cli
