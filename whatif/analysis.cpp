#include "whatif/analysis.hpp"

#include <algorithm>
#include <array>
#include <memory>

#include "base/error.hpp"
#include "config/resolve.hpp"
#include "engines/sim_time.hpp"
#include "profile/host_trace.hpp"
#include "sequence/host_model.hpp"
#include "sim/fresh_context.hpp"
#include "traces/critical_path.hpp"
#include "traces/format.hpp"
#include "whatif/bench.hpp"
#include "whatif/capture.hpp"
#include "whatif/instruction_text.hpp"
#include "whatif/kernel_edits.hpp"

namespace neuronsim::whatif {

namespace {

using traces::human_bytes;
using traces::human_time;

std::uint64_t ns_to_ps(double ns) {
  return static_cast<std::uint64_t>(ns * 1000.0 + 0.5);
}

// A semaphore wait on a baseline launch's critical path.
struct CriticalWait {
  std::size_t launch = 0;
  isa::Engine engine = isa::Engine::tensor;
  std::uint32_t index = 0;  // in the engine's stream
  std::size_t wait = 0;     // in the instruction's waits
  std::uint16_t semaphore = 0;
  std::uint32_t wanted = 0;
  std::uint64_t waited_ps = 0;
  traces::SignalSource signaller;
};

std::vector<CriticalWait> critical_waits(const std::vector<TraceCapture>& captures,
                                         std::size_t max_waits) {
  std::vector<CriticalWait> out;
  for (std::size_t l = 0; l < captures.size(); ++l) {
    const traces::TraceData& t = captures[l].trace();
    for (const traces::CriticalStep& step : traces::critical_path(t)) {
      if (step.kind != traces::CriticalStep::Kind::instruction) continue;
      const traces::InstructionRecord& r = t.instructions[step.index];
      const traces::SemaphoreWaitRecord* w = traces::longest_wait(r);
      if (!w || w->waited_ps == 0) continue;
      CriticalWait c;
      c.launch = l;
      c.engine = r.engine;
      c.index = r.index;
      c.wait = static_cast<std::size_t>(w - r.semaphore_waits.data());
      c.semaphore = w->semaphore;
      c.wanted = w->wanted;
      c.waited_ps = w->waited_ps;
      c.signaller = w->last_signaller;
      out.push_back(c);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const CriticalWait& a, const CriticalWait& b) {
    return a.waited_ps > b.waited_ps;
  });
  if (out.size() > max_waits) out.resize(max_waits);
  return out;
}

std::string signaller_text(const isa::Kernel& k, const traces::SignalSource& s) {
  switch (s.kind) {
    case traces::SignalSource::Kind::initial:
      return "its initial value";
    case traces::SignalSource::Kind::engine:
      return instruction_text(k, s.engine, s.instruction);
    case traces::SignalSource::Kind::dma_queue:
      return "the DMA transfer of " + instruction_text(k, s.engine, s.instruction);
  }
  return "?";  // unreachable: every kind is handled above
}

// What the baseline says about each resource, summed over the launches.
struct Figures {
  double device_ns = 0;
  std::array<double, isa::kEngineCount> busy_ns{};
  std::array<std::uint64_t, isa::kEngineCount> instructions{};
  std::array<std::uint64_t, isa::kEngineCount> waits_caused_ps{};  // on its signals
  std::uint64_t dma_waits_caused_ps = 0;                           // on DMA completions
  std::uint64_t dma_active_ps = 0;                                 // some DMA part moving
  std::uint64_t dma_bytes = 0, dma_parts = 0, hbm_bytes = 0;
  double port_wait_ns = 0;
};

Figures figures(const std::vector<TraceCapture>& captures, const std::vector<JobResult>& base) {
  Figures f;
  for (std::size_t l = 0; l < captures.size(); ++l) {
    f.device_ns += static_cast<double>(base[l].total_ps) / 1000.0;
    for (int e = 0; e < isa::kEngineCount; ++e) {
      f.busy_ns[e] += engines::ps_to_ns(base[l].engines[e].busy_ps);
      f.instructions[e] += base[l].engines[e].instruction_count;
      f.port_wait_ns += engines::ps_to_ns(base[l].engines[e].port_wait_ps);
    }
    const traces::TraceData& t = captures[l].trace();
    for (const traces::InstructionRecord& r : t.instructions)
      for (const traces::SemaphoreWaitRecord& w : r.semaphore_waits) {
        if (w.last_signaller.kind == traces::SignalSource::Kind::engine)
          f.waits_caused_ps[static_cast<int>(w.last_signaller.engine)] += w.waited_ps;
        if (w.last_signaller.kind == traces::SignalSource::Kind::dma_queue)
          f.dma_waits_caused_ps += w.waited_ps;
      }
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
    for (const traces::DmaRecord& d : t.dmas) {
      spans.emplace_back(d.start_ps, d.end_ps);
      f.dma_bytes += d.bytes;
      ++f.dma_parts;
      if (d.src == isa::MemSpace::hbm || d.dst == isa::MemSpace::hbm) f.hbm_bytes += d.bytes;
    }
    std::sort(spans.begin(), spans.end());
    std::uint64_t covered_to = 0;
    for (const auto& [start, end] : spans) {
      const std::uint64_t from = std::max(start, covered_to);
      if (end > from) f.dma_active_ps += end - from;
      covered_to = std::max(covered_to, end);
    }
  }
  return f;
}

double share(double part, double whole) {
  return whole > 0 ? part / whole : 0;
}

void describe(Row& row, const Relief& relief, const Figures& f, const config::TargetConfig& base,
              double host_gap_ns) {
  const double device_ps = f.device_ns * 1000.0;
  switch (relief.kind) {
    case ResourceKind::engine: {
      const int e = static_cast<int>(relief.engine);
      row.busy_share = share(f.busy_ns[e], f.device_ns);
      row.waits_caused_ns = static_cast<double>(f.waits_caused_ps[e]) / 1000.0;
      row.role = "busy " + share_text(row.busy_share) + " of the device time (" +
                 std::to_string(f.instructions[e]) + " instructions); others waited " +
                 human_time(f.waits_caused_ps[e]) + " on its signals";
      return;
    }
    case ResourceKind::dma:
      row.busy_share = share(static_cast<double>(f.dma_active_ps), device_ps);
      row.waits_caused_ns = static_cast<double>(f.dma_waits_caused_ps) / 1000.0;
      row.role = "moving data " + share_text(row.busy_share) + " of the device time (" +
                 human_bytes(f.dma_bytes) + " in " + std::to_string(f.dma_parts) +
                 " parts); instructions waited " + human_time(f.dma_waits_caused_ps) +
                 " on DMA completions";
      return;
    case ResourceKind::hbm: {
      // The core's share of the chip's bandwidth (config/target_config.cpp).
      const double peak = base.dma.hbm_bytes_per_ns * f.device_ns;
      row.busy_share = share(static_cast<double>(f.hbm_bytes), peak);
      row.role = human_bytes(f.hbm_bytes) + " to or from HBM: " + share_text(row.busy_share) +
                 " of the core's HBM bandwidth over the device time";
      return;
    }
    case ResourceKind::port:
      row.waits_caused_ns = f.port_wait_ns;
      row.role = "engines waited " + human_time(ns_to_ps(f.port_wait_ns)) + " for memory ports";
      return;
    case ResourceKind::host:
      row.waits_caused_ns = host_gap_ns;
      row.role = "device idle " + human_time(ns_to_ps(host_gap_ns)) +
                 " between launches while the host dispatched";
      return;
    case ResourceKind::semaphore:
      return;  // described with its wait
  }
}

// Why relieving `r` cannot change the kernel's device times, or "" when it may: it
// relieves what the baseline does not use (an engine that runs no instruction, DMA or
// HBM with no transfer, a port nobody waited for: with every reservation granted at once,
// splitting a shared port grants them at the same times).
std::string unused_reason(const Relief& r, const Figures& f) {
  switch (r.kind) {
    case ResourceKind::engine:
      return f.instructions[static_cast<int>(r.engine)] == 0
                 ? "the " + std::string(isa::engine_name(r.engine)) + " engine runs no instruction"
                 : "";
    case ResourceKind::dma:
      return f.dma_parts == 0 ? "no DMA transfer" : "";
    case ResourceKind::hbm:
      return f.hbm_bytes == 0 ? "no HBM traffic" : "";
    case ResourceKind::port:
      return f.port_wait_ns == 0 ? "no instruction waited for a memory port" : "";
    case ResourceKind::host:
    case ResourceKind::semaphore:
      return "";
  }
  return "";  // unreachable: every kind is handled above
}

// Ranked: fastest first, ties in the order tried; reliefs that failed last.
void rank(std::vector<Row>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.error.empty() != b.error.empty()) return a.error.empty();
    return a.error.empty() && a.time_ns < b.time_ns;
  });
}

}  // namespace

Result analyse(const Subject& subject, const Options& options) {
  if (subject.kernels.empty()) throw Error(subject.source + ": no kernel to analyse");
  // As `neuronsim run` picks it: the one asked for, else the kernel's own, else trn1.
  const std::string& own = !subject.target.empty() ? subject.target : subject.kernels[0]->target;
  const std::string target =
      !options.target.empty() ? options.target : (!own.empty() ? own : "trn1");
  const config::ResolvedTarget resolved = config::resolve_target(target, options.overrides);
  const std::vector<Relief> reliefs = config_reliefs(resolved, subject.sequence);
  // The bench's configs: the base, then one per relief that changes the device.
  std::vector<config::TargetConfig> configs = {config::to_target_config(resolved)};
  std::vector<config::TargetConfig> relieved;             // per relief
  std::vector<std::size_t> config_of(reliefs.size(), 0);  // host-only: the base's devices
  for (std::size_t i = 0; i < reliefs.size(); ++i) {
    relieved.push_back(config::to_target_config(
        config::resolve_target(target, options.overrides, {reliefs[i].patch})));
    if (reliefs[i].host_only) continue;
    config_of[i] = configs.size();
    configs.push_back(relieved.back());
  }
  const config::TargetConfig& base = configs[0];
  const std::size_t launches = subject.kernels.size();

  Bench bench(configs);
  Result result;
  result.source = subject.source;
  result.target = base.name;
  result.sequence = subject.sequence;
  result.launches = launches;

  // Batch 1: the baseline, traced.
  std::vector<TraceCapture> captures(launches);
  std::vector<Job> jobs;
  for (std::size_t l = 0; l < launches; ++l)
    jobs.push_back({0, subject.kernels[l], subject.names[l], &captures[l]});
  const std::vector<JobResult> baseline = bench.run(jobs);
  for (std::size_t l = 0; l < launches; ++l)
    if (!baseline[l].error.empty()) throw Error(subject.names[l] + ": " + baseline[l].error);

  // The kernel's time from its launches' device times under `config`'s host.
  auto kernel_ns = [&](const config::TargetConfig& config, const std::vector<std::uint64_t>& ps) {
    std::vector<double> device_ns;
    double sum = 0;
    for (std::uint64_t p : ps) {
      device_ns.push_back(static_cast<double>(p) / 1000.0);
      sum += device_ns.back();
    }
    return subject.sequence ? sequence::schedule_launches(config.host, device_ns).total_ns : sum;
  };
  std::vector<std::uint64_t> baseline_ps;
  std::vector<double> baseline_device_ns;
  for (const JobResult& r : baseline) {
    baseline_ps.push_back(r.total_ps);
    baseline_device_ns.push_back(static_cast<double>(r.total_ps) / 1000.0);
  }
  result.baseline_ns = kernel_ns(base, baseline_ps);
  const Figures f = figures(captures, baseline);
  result.device_ns = f.device_ns;
  const profile::HostTimeline timeline =
      subject.sequence ? sequence::schedule_launches(base.host, baseline_device_ns)
                       : profile::HostTimeline{};

  // Batch 2, all at once: the reliefs that can change the device times (one that
  // relieves what the kernel does not use cannot, and is not run: its time is the
  // baseline's, exactly), each critical-path wait taken out and the kernel edits that
  // measure the insights, on the base's core.
  std::vector<std::string> unused(reliefs.size());
  std::vector<std::size_t> first_job(reliefs.size(), 0);
  jobs.clear();
  for (std::size_t i = 0; i < reliefs.size(); ++i) {
    unused[i] = unused_reason(reliefs[i], f);
    if (reliefs[i].host_only || !unused[i].empty()) continue;
    first_job[i] = jobs.size();
    for (std::size_t l = 0; l < launches; ++l)
      jobs.push_back({config_of[i], subject.kernels[l], subject.names[l], nullptr});
  }
  std::vector<InsightCandidate> insights =
      find_insights(Baseline{subject, captures, baseline, base, timeline});
  const std::vector<CriticalWait> waits = critical_waits(captures, options.max_waits);
  const std::size_t first_wait_job = jobs.size();
  for (const CriticalWait& w : waits) {
    const isa::Kernel& k = *subject.kernels[w.launch];
    jobs.push_back({0,
                    std::make_shared<const isa::Kernel>(without_wait(k, w.engine, w.index, w.wait)),
                    subject.names[w.launch], nullptr});
  }
  for (const InsightCandidate& c : insights)
    if (c.edited) jobs.push_back({0, c.edited, subject.names[c.launch], nullptr});
  const std::vector<JobResult> second = bench.run(jobs);
  result.simulated_launches = launches + jobs.size();

  for (std::size_t i = 0; i < reliefs.size(); ++i) {
    Row row;
    row.kind = reliefs[i].kind;
    row.resource = reliefs[i].resource;
    row.relief = reliefs[i].relief;
    row.change = change_text(reliefs[i].patch);
    row.unused = unused[i];
    std::vector<std::uint64_t> ps = baseline_ps;  // host-only and unused: the baseline's
    if (!reliefs[i].host_only && row.unused.empty())
      for (std::size_t l = 0; l < launches; ++l) {
        const JobResult& r = second[first_job[i] + l];
        if (!r.error.empty() && row.error.empty()) row.error = subject.names[l] + ": " + r.error;
        ps[l] = r.total_ps;
      }
    row.time_ns = row.error.empty() ? kernel_ns(relieved[i], ps) : 0;
    describe(row, reliefs[i], f, base, result.baseline_ns - f.device_ns);
    result.ranking.push_back(row);
  }
  for (std::size_t i = 0; i < waits.size(); ++i) {
    const CriticalWait& w = waits[i];
    const isa::Kernel& k = *subject.kernels[w.launch];
    Row row;
    row.kind = ResourceKind::semaphore;
    row.resource = "semaphore " + semaphore_name(k, w.semaphore);
    row.relief = "wait removed";
    row.where = (launches > 1 ? subject.names[w.launch] + ": " : "") +
                instruction_text(k, w.engine, w.index);
    row.change = "the wait " + semaphore_name(k, w.semaphore) + " >= " + std::to_string(w.wanted) +
                 " of " + instruction_text(k, w.engine, w.index) + " taken out";
    row.waits_caused_ns = static_cast<double>(w.waited_ps) / 1000.0;
    row.role = "held " + instruction_text(k, w.engine, w.index) + " back " +
               human_time(w.waited_ps) + " on the critical path, until " +
               signaller_text(k, w.signaller) + " signalled it";
    std::vector<std::uint64_t> ps = baseline_ps;
    ps[w.launch] = second[first_wait_job + i].total_ps;
    row.error = second[first_wait_job + i].error;
    row.time_ns = row.error.empty() ? kernel_ns(base, ps) : 0;
    result.ranking.push_back(row);
  }
  std::size_t next_edit = first_wait_job + waits.size();
  for (InsightCandidate& c : insights) {
    Insight& in = c.insight;
    if (c.edited) {
      const JobResult& r = second[next_edit++];
      std::vector<std::uint64_t> ps = baseline_ps;
      ps[c.launch] = r.total_ps;
      in.error = r.error;
      in.time_ns = in.error.empty() ? kernel_ns(base, ps) : 0;
    } else {
      // Before ranking: the rows in relief order, so ties go to the first.
      auto row = result.ranking.end();
      for (auto it = result.ranking.begin(); it != result.ranking.end(); ++it) {
        const bool named =
            c.row_resource.empty() ? it->kind == c.row_kind : it->resource == c.row_resource;
        if (!named || it->relief != c.row_relief) continue;
        if (row == result.ranking.end() ||
            (it->error.empty() && (!row->error.empty() || it->time_ns < row->time_ns)))
          row = it;
      }
      if (row == result.ranking.end()) continue;  // the target has no such relief
      in.measured_by = row->resource + ", " + row->relief + " (" + row->change + ")";
      in.time_ns = row->time_ns;
      in.error = row->error;
    }
    in.speedup = in.error.empty() && in.time_ns > 0 ? result.baseline_ns / in.time_ns : 0;
    result.insights.push_back(in);
  }
  std::stable_sort(result.insights.begin(), result.insights.end(),
                   [](const Insight& a, const Insight& b) { return a.speedup > b.speedup; });
  for (Row& row : result.ranking)
    row.speedup = row.error.empty() && row.time_ns > 0 ? result.baseline_ns / row.time_ns : 0;
  rank(result.ranking);
  return result;
}

std::vector<Insight> profile_insights(const std::string& dir) {
  const Subject subject = profile_subject(dir);
  Options options;
  options.max_waits = 0;  // the insights need no critical-path waits
  const sim::FreshContext context;
  return analyse(subject, options).insights;
}

}  // namespace neuronsim::whatif
