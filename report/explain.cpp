#include "report/explain.hpp"

#include <algorithm>
#include <cmath>

#include "traces/format.hpp"

namespace neuronsim::report {

namespace {

using traces::fixed;
using traces::human_bytes;
using traces::human_time;

std::string engine_text(isa::Engine e) {
  return std::string(isa::engine_name(e));
}

std::string share(std::uint64_t part, std::uint64_t whole) {
  return whole ? traces::percent(100.0 * static_cast<double>(part) / static_cast<double>(whole))
               : "-";
}

// Time covered by at least one launch's device execution.
std::uint64_t device_union_ps(const std::vector<RunLaunch>& launches) {
  std::vector<Interval> spans;
  for (const RunLaunch& l : launches)
    spans.push_back(l.device);
  std::sort(spans.begin(), spans.end(),
            [](const Interval& a, const Interval& b) { return a.start_ps < b.start_ps; });
  std::uint64_t covered = 0, cursor = 0;
  for (const Interval& s : spans) {
    const std::uint64_t from = std::max(s.start_ps, cursor);
    if (s.end_ps > from) covered += s.end_ps - from;
    cursor = std::max(cursor, s.end_ps);
  }
  return covered;
}

double ratio(double a, double b) {
  return b > 0 ? a / b : 0;
}

// "3.20x less" / "1.50x more" / "the same" for a quantity that went from `base` to `now`.
std::string change(double base, double now, const char* less, const char* more) {
  if (base <= 0 && now <= 0) return "the same";
  if (std::fabs(now - base) <= 0.02 * std::max(base, now)) return "about the same";
  if (now < base) return now > 0 ? fixed(base / now, 2) + "x " + less : "none of the";
  return base > 0 ? fixed(now / base, 2) + "x " + more : "some (baseline: none)";
}

std::string signed_time(std::int64_t delta_ps) {
  const std::string mag = human_time(static_cast<std::uint64_t>(std::llabs(delta_ps)));
  return (delta_ps < 0 ? "-" : "+") + mag;
}

}  // namespace

RunFacts run_facts(const Run& run) {
  RunFacts f;
  const traces::Summary& d = run.device;
  f.total_ps = run.total_ps;
  f.device_ps = d.total_ps;
  f.launches = run.launches.size();
  const std::uint64_t covered = device_union_ps(run.launches);
  f.dispatch_gap_ps = run.total_ps > covered ? run.total_ps - covered : 0;
  const int hbm = static_cast<int>(isa::MemSpace::hbm);
  f.hbm_bytes = d.memory.read[hbm] + d.memory.written[hbm];
  f.round_trips =
      run.io_bytes ? ratio(static_cast<double>(f.hbm_bytes), static_cast<double>(run.io_bytes)) : 0;
  f.dma_active_ps = d.dma_active_ps;
  for (int e = 0; e < isa::kEngineCount; ++e) {
    if (d.engines[e].busy_ps > f.busiest_busy_ps) {
      f.busiest_busy_ps = d.engines[e].busy_ps;
      f.busiest = static_cast<isa::Engine>(e);
    }
    const std::uint64_t outside = run.total_ps > d.total_ps ? run.total_ps - d.total_ps : 0;
    f.idle_ps[e] = d.engines[e].idle_ps + outside;
  }
  if (run.peak_flops_per_s > 0 && run.total_ps > 0)
    f.mfu_percent = 100.0 * static_cast<double>(d.model_flops) /
                    (static_cast<double>(run.total_ps) * 1e-12 * run.peak_flops_per_s);
  if (f.dispatch_gap_ps > f.device_ps)
    f.bound = Bound::host;
  else if (f.dma_active_ps >= f.busiest_busy_ps)
    f.bound = Bound::dma;
  else
    f.bound = Bound::compute;
  return f;
}

std::string bound_text(const RunFacts& f) {
  switch (f.bound) {
    case Bound::host:
      return "host-bound (launch overhead)";
    case Bound::dma:
      return "DMA/HBM-bound";
    case Bound::compute:
      break;
  }
  return "compute-bound (" + engine_text(f.busiest) + ")";
}

std::vector<std::string> explain_run(const Run& run, const RunFacts& f) {
  std::vector<std::string> out;
  std::string time = human_time(f.total_ps) + " end to end";
  if (run.sequence) {
    time += " in " + std::to_string(f.launches) + (f.launches == 1 ? " launch" : " launches") +
            "; the device ran " + human_time(f.device_ps) + " (" + share(f.device_ps, f.total_ps) +
            ") and waited " + human_time(f.dispatch_gap_ps) + " (" +
            share(f.dispatch_gap_ps, f.total_ps) + ") for the host (dispatch gap).";
  } else {
    time += ", one kernel, no host time modelled.";
  }
  out.push_back(time);
  std::string hbm = "HBM traffic " + human_bytes(f.hbm_bytes);
  if (run.io_bytes)
    hbm += " = " + fixed(f.round_trips, 2) + " round trips of the program's " +
           human_bytes(run.io_bytes) + " of inputs and outputs.";
  else
    hbm += " (the program's input and output size is unknown).";
  out.push_back(hbm);
  out.push_back("Busiest engine: " + engine_text(f.busiest) + ", busy " +
                human_time(f.busiest_busy_ps) + " (" + share(f.busiest_busy_ps, f.device_ps) +
                " of device time); DMA moved data " + human_time(f.dma_active_ps) + " (" +
                share(f.dma_active_ps, f.device_ps) + ").");
  std::string idle = "Engine idle time:";
  std::string sep = " ";
  for (int e = 0; e < isa::kEngineCount; ++e) {
    idle += sep + engine_text(static_cast<isa::Engine>(e)) + " " + human_time(f.idle_ps[e]) + " (" +
            share(f.idle_ps[e], f.total_ps) + ")";
    sep = ", ";
  }
  out.push_back(idle + ".");
  std::string why = "Bound: " + bound_text(f) + ": ";
  switch (f.bound) {
    case Bound::host:
      why += "the dispatch gap " + human_time(f.dispatch_gap_ps) + " exceeds the device time " +
             human_time(f.device_ps) + ".";
      break;
    case Bound::dma:
      why += "DMA active time " + human_time(f.dma_active_ps) + " >= the busiest engine's busy " +
             "time " + human_time(f.busiest_busy_ps) + ".";
      break;
    case Bound::compute:
      why += engine_text(f.busiest) + " busy " + human_time(f.busiest_busy_ps) +
             " > DMA active time " + human_time(f.dma_active_ps) + ".";
      break;
  }
  out.push_back(why);
  return out;
}

std::vector<std::string> explain_against(const Run& base, const RunFacts& bf, const Run& run,
                                         const RunFacts& f) {
  std::vector<std::string> out;
  const double speed = ratio(static_cast<double>(bf.total_ps), static_cast<double>(f.total_ps));
  out.push_back("Takes " + human_time(f.total_ps) + " against the baseline's " +
                human_time(bf.total_ps) + ": " + fixed(speed, 2) + "x its speed (" +
                (run.sequence ? run.mode + ", " : std::string("single kernel, ")) + "against " +
                (base.sequence ? base.mode : std::string("single kernel")) + ").");

  // Where the time went: host gap and device time, the larger change first.
  const auto delta = [](std::uint64_t now, std::uint64_t was) {
    return static_cast<std::int64_t>(now) - static_cast<std::int64_t>(was);
  };
  const std::int64_t gap_delta = delta(f.dispatch_gap_ps, bf.dispatch_gap_ps);
  const std::int64_t device_delta = delta(f.device_ps, bf.device_ps);
  const std::string launches =
      "Launches: " + std::to_string(f.launches) + " against " + std::to_string(bf.launches) +
      "; dispatch gap " + human_time(f.dispatch_gap_ps) + " against " +
      human_time(bf.dispatch_gap_ps) + " (" + signed_time(gap_delta) + ").";
  const std::string device = "Device time " + human_time(f.device_ps) + " against " +
                             human_time(bf.device_ps) + " (" + signed_time(device_delta) + ").";
  if (std::llabs(gap_delta) > std::llabs(device_delta)) {
    out.push_back(launches);
    out.push_back(device);
  } else {
    out.push_back(device);
    out.push_back(launches);
  }

  std::string hbm =
      "HBM traffic: " +
      change(static_cast<double>(bf.hbm_bytes), static_cast<double>(f.hbm_bytes), "less", "more") +
      " (" + human_bytes(f.hbm_bytes) + " against " + human_bytes(bf.hbm_bytes);
  if (f.round_trips > 0 && bf.round_trips > 0)
    hbm += "; " + fixed(f.round_trips, 2) + " against " + fixed(bf.round_trips, 2) + " round trips";
  out.push_back(hbm + ").");
  out.push_back("DMA active " + human_time(f.dma_active_ps) + " against " +
                human_time(bf.dma_active_ps) + "; busiest engine " + engine_text(f.busiest) +
                " busy " + human_time(f.busiest_busy_ps) + " against " + engine_text(bf.busiest) +
                " " + human_time(bf.busiest_busy_ps) + ".");
  out.push_back("Bound: " + bound_text(f) +
                (f.bound == bf.bound && f.busiest == bf.busiest
                     ? " like the baseline."
                     : " where the baseline is " + bound_text(bf) + "."));
  return out;
}

}  // namespace neuronsim::report
