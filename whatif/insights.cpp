#include "whatif/insights.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "cost/cost_model.hpp"
#include "engines/sim_time.hpp"
#include "memory/footprint.hpp"
#include "traces/format.hpp"
#include "whatif/instruction_text.hpp"
#include "whatif/kernel_edits.hpp"

namespace neuronsim::whatif {

namespace {

using traces::human_bytes;
using traces::human_time;

// Below these shares of the device time a finding is not worth a line: 1%, so that
// only a tenth of a percent of noise is never an insight.
constexpr double kMinShare = 0.01;
// An engine busy less than this share of its launch has little to gain from waiting less.
constexpr double kBusyEngine = 0.1;

std::string where_text(const Baseline& b, std::size_t launch, isa::Engine e, std::uint32_t index) {
  return (b.subject.kernels.size() > 1 ? b.subject.names[launch] + ": " : "") +
         instruction_text(*b.subject.kernels[launch], e, index);
}

double device_ps_of(const Baseline& b) {
  double ps = 0;
  for (const JobResult& r : b.results)
    ps += static_cast<double>(r.total_ps);
  return ps;
}

// Transfers whose contiguous rows are shorter than the size that reaches full rate
// (engines/dma_split.cpp, dma.efficient_bytes_per_row).
void small_dma(const Baseline& b, std::vector<InsightCandidate>& out) {
  const std::uint32_t efficient = b.config.dma.efficient_bytes_per_row;
  std::uint64_t small_bytes = 0, all_bytes = 0, worst_bytes = 0, worst_run = 0;
  std::size_t worst_launch = 0;
  const traces::InstructionRecord* worst = nullptr;
  for (std::size_t l = 0; l < b.captures.size(); ++l) {
    const isa::Kernel& k = *b.subject.kernels[l];
    std::map<std::pair<int, std::uint32_t>, std::uint64_t> bytes_of;  // per dma_copy
    for (const traces::DmaRecord& d : b.captures[l].trace().dmas)
      bytes_of[{static_cast<int>(d.issuer), d.issuer_index}] += d.bytes;
    for (const traces::InstructionRecord& r : b.captures[l].trace().instructions) {
      if (r.opcode != isa::Opcode::dma_copy) continue;
      const isa::Instruction instr = k.stream(r.engine).at(r.index);
      const auto& copy = std::get<isa::DmaCopy>(instr.op);
      const std::uint64_t run =
          std::min(memory::contiguous_row_bytes(copy.src), memory::contiguous_row_bytes(copy.dst));
      const std::uint64_t bytes = bytes_of[{static_cast<int>(r.engine), r.index}];
      all_bytes += bytes;
      if (run >= efficient) continue;
      small_bytes += bytes;
      if (bytes > worst_bytes) {
        worst_bytes = bytes;
        worst_run = run;
        worst = &r;
        worst_launch = l;
      }
    }
  }
  if (!worst || small_bytes == 0) return;
  InsightCandidate c;
  c.insight.kind = "small_dma";
  c.insight.title = "small DMA transfers: " + human_bytes(small_bytes) + " (" +
                    share_text(static_cast<double>(small_bytes) / static_cast<double>(all_bytes)) +
                    " of the DMA bytes) move in contiguous rows shorter than the " +
                    std::to_string(efficient) + " B that reach full rate (the largest: rows of " +
                    std::to_string(worst_run) + " B)";
  c.insight.where = where_text(b, worst_launch, worst->engine, worst->index);
  c.insight.advice =
      "make each descriptor's contiguous run at least " + std::to_string(efficient) +
      " B: move whole rows (a larger free size per partition, a layout with the moved "
      "dimension innermost), or fewer, larger dma_copies";
  c.row_resource = "DMA descriptors";
  c.row_relief = "short rows at full rate";
  out.push_back(std::move(c));
}

// The engine that waited longest on one semaphore.
void semaphore_idle(const Baseline& b, std::vector<InsightCandidate>& out) {
  // (launch, engine, semaphore) -> waited ps, and the instruction that waited longest.
  std::map<std::tuple<std::size_t, int, std::uint16_t>,
           std::pair<std::uint64_t, const traces::InstructionRecord*>>
      waited;
  std::map<std::tuple<std::size_t, int, std::uint16_t>, std::uint64_t> longest;
  for (std::size_t l = 0; l < b.captures.size(); ++l)
    for (const traces::InstructionRecord& r : b.captures[l].trace().instructions)
      for (const traces::SemaphoreWaitRecord& w : r.semaphore_waits) {
        // An engine with work to do: a compute engine busy at least kBusyEngine of its
        // launch (the Sync engine's waits are its DMA issue order, an idle engine's the
        // end of the kernel).
        const traces::EngineTime& e = b.results[l].engines[static_cast<int>(r.engine)];
        if (r.engine == isa::Engine::sync ||
            engines::ps_to_ns(e.busy_ps) * 1000.0 <
                kBusyEngine * static_cast<double>(b.results[l].total_ps))
          continue;
        const auto key = std::make_tuple(l, static_cast<int>(r.engine), w.semaphore);
        auto& [sum, at] = waited[key];
        sum += w.waited_ps;
        if (w.waited_ps > longest[key]) {
          longest[key] = w.waited_ps;
          at = &r;
        }
      }
  const auto best = std::max_element(
      waited.begin(), waited.end(),
      [](const auto& x, const auto& y) { return x.second.first < y.second.first; });
  if (best == waited.end() || !best->second.second) return;
  const auto [launch, engine, sem] = best->first;
  const double launch_ps = static_cast<double>(b.results[launch].total_ps);
  if (static_cast<double>(best->second.first) < kMinShare * launch_ps) return;
  const isa::Kernel& k = *b.subject.kernels[launch];
  const auto e = static_cast<isa::Engine>(engine);
  InsightCandidate c;
  c.insight.kind = "semaphore_idle";
  c.insight.title = std::string(isa::engine_name(e)) +
                    " engine idle on one semaphore: " + human_time(best->second.first) + " (" +
                    share_text(static_cast<double>(best->second.first) / launch_ps) +
                    " of its launch) waiting on " + semaphore_name(k, sem);
  c.insight.where = where_text(b, launch, e, best->second.second->index);
  c.insight.advice =
      "let the producer run ahead: more buffers for what " + semaphore_name(k, sem) +
      " guards (double or triple buffering), or move independent work before the wait";
  c.insight.measured_by = "every wait of the " + std::string(isa::engine_name(e)) + " engine on " +
                          semaphore_name(k, sem) + " taken out";
  c.launch = launch;
  c.edited = std::make_shared<const isa::Kernel>(without_waits_on(k, e, sem));
  out.push_back(std::move(c));
}

void port_conflicts(const Baseline& b, std::vector<InsightCandidate>& out) {
  double wait_ns = 0, worst_ps = 0;
  std::size_t worst_launch = 0;
  const traces::InstructionRecord* worst = nullptr;
  for (std::size_t l = 0; l < b.captures.size(); ++l) {
    for (const traces::EngineTime& e : b.results[l].engines)
      wait_ns += engines::ps_to_ns(e.port_wait_ps);
    for (const traces::InstructionRecord& r : b.captures[l].trace().instructions)
      if (static_cast<double>(r.port_wait_ps) > worst_ps) {
        worst_ps = static_cast<double>(r.port_wait_ps);
        worst = &r;
        worst_launch = l;
      }
  }
  if (!worst || wait_ns * 1000.0 < kMinShare * device_ps_of(b)) return;
  const bool banks = b.config.psum_same_bank_conflicts;
  InsightCandidate c;
  c.insight.kind = "port_conflicts";
  c.insight.title =
      std::string(banks ? "PSUM bank" : "SBUF/PSUM port") + " conflicts: engines waited " +
      human_time(static_cast<std::uint64_t>(wait_ns * 1000.0 + 0.5)) + " for memory ports";
  c.insight.where = where_text(b, worst_launch, worst->engine, worst->index);
  c.insight.advice = banks ? "give concurrent PSUM accesses different banks (accumulate into one "
                             "bank while another is read out)"
                           : "keep engines that share a port (Vector and GpSimd on SBUF, Vector "
                             "and Scalar on PSUM) from accessing it at the same time";
  c.row_kind = ResourceKind::port;  // the port relief that buys most
  c.row_relief = "sharing removed";
  out.push_back(std::move(c));
}

// A queue on one DMA engine that moves a large share of the bytes.
void queue_on_one_engine(const Baseline& b, std::vector<InsightCandidate>& out) {
  std::uint64_t best_ps = 0;
  std::size_t best_launch = 0;
  std::uint16_t best_queue = 0;
  for (std::size_t l = 0; l < b.captures.size(); ++l) {
    const isa::Kernel& k = *b.subject.kernels[l];
    std::map<std::uint16_t, std::uint64_t> busy;
    for (const traces::DmaRecord& d : b.captures[l].trace().dmas)
      if (d.queue < k.queues.size() && k.queues[d.queue].engines == 1)
        busy[d.queue] += d.end_ps - d.start_ps;
    for (const auto& [q, ps] : busy)
      if (ps > best_ps) {
        best_ps = ps;
        best_launch = l;
        best_queue = q;
      }
  }
  if (best_ps == 0 || b.config.dma.engines < 2) return;
  const double launch_ps = static_cast<double>(b.results[best_launch].total_ps);
  if (static_cast<double>(best_ps) < kMinShare * launch_ps) return;
  const isa::Kernel& k = *b.subject.kernels[best_launch];
  const traces::DmaRecord* first = nullptr;
  for (const traces::DmaRecord& d : b.captures[best_launch].trace().dmas)
    if (d.queue == best_queue && (!first || d.bytes > first->bytes)) first = &d;
  const std::string name = k.queues[best_queue].name;
  const auto engines =
      static_cast<std::uint8_t>(std::min<std::uint32_t>(b.config.dma.engines, 255));
  InsightCandidate c;
  c.insight.kind = "dma_queue_one_engine";
  c.insight.title = "DMA queue " + name + " serialised on one DMA engine: busy " +
                    human_time(best_ps) + " (" +
                    share_text(static_cast<double>(best_ps) / launch_ps) + " of its launch)";
  c.insight.where = first ? where_text(b, best_launch, first->issuer, first->issuer_index) : "";
  c.insight.advice = "give queue " + name +
                     " more DMA engines (engines=" + std::to_string(engines) +
                     "), or split its transfers over queues on different engines";
  c.insight.measured_by = "queue " + name + " on DMA engines 0.." + std::to_string(engines - 1);
  c.launch = best_launch;
  c.edited = std::make_shared<const isa::Kernel>(with_queue_engines(k, best_queue, 0, engines));
  out.push_back(std::move(c));
}

// Matmuls (plain or MX) that loaded their stationary operand (not reused from the matmul
// before).
void stationary_loads(const Baseline& b, std::vector<InsightCandidate>& out) {
  double load_ns = 0, tensor_busy_ns = 0;
  std::uint64_t loads = 0, worst_cycles = 0;
  std::size_t worst_launch = 0;
  const traces::InstructionRecord* worst = nullptr;
  for (std::size_t l = 0; l < b.captures.size(); ++l) {
    const isa::Kernel& k = *b.subject.kernels[l];
    tensor_busy_ns +=
        engines::ps_to_ns(b.results[l].engines[static_cast<int>(isa::Engine::tensor)].busy_ps);
    for (const traces::InstructionRecord& r : b.captures[l].trace().instructions) {
      if ((r.opcode != isa::Opcode::matmul && r.opcode != isa::Opcode::matmul_mx) ||
          r.stationary_reused)
        continue;
      const std::uint64_t cycles =
          *isa::load_stationary_cycles(k.stream(r.engine).at(r.index), b.config.cost);
      ++loads;
      load_ns += static_cast<double>(cycles) / b.config.tensor_ghz;
      if (cycles > worst_cycles) {
        worst_cycles = cycles;
        worst = &r;
        worst_launch = l;
      }
    }
  }
  if (!worst || load_ns < kMinShare * tensor_busy_ns) return;
  InsightCandidate c;
  c.insight.kind = "stationary_load";
  c.insight.title = "Tensor engine waiting for its stationary loads: " + std::to_string(loads) +
                    " loads, up to " +
                    human_time(static_cast<std::uint64_t>(load_ns * 1000.0 + 0.5)) + " (" +
                    share_text(load_ns / std::max(tensor_busy_ns, 1e-9)) +
                    " of its busy time; a load behind a multiply overlaps it)";
  c.insight.where = where_text(b, worst_launch, worst->engine, worst->index);
  c.insight.advice =
      "reuse each stationary tile across consecutive matmuls (keep the weights, stream the "
      "moving tiles), and let the next stationary load in the background (no semaphore wait "
      "between the matmuls)";
  c.row_resource = "tensor engine stationary loads";
  c.row_relief = "one cycle each";
  out.push_back(std::move(c));
}

void host_gaps(const Baseline& b, std::vector<InsightCandidate>& out) {
  if (!b.subject.sequence || b.timeline.launches.empty()) return;
  const double gap = b.timeline.dispatch_gap_ns();
  if (gap <= kMinShare * b.timeline.total_ns) return;
  std::size_t worst = 0;
  double worst_gap = -1, previous_end = 0;
  for (std::size_t i = 0; i < b.timeline.launches.size(); ++i) {
    const double g = b.timeline.launches[i].device.start_ns - previous_end;
    if (g > worst_gap) {
      worst_gap = g;
      worst = i;
    }
    previous_end = b.timeline.launches[i].device.end_ns;
  }
  InsightCandidate c;
  c.insight.kind = "host_gaps";
  c.insight.title = "host dispatch gaps: the device sat idle " +
                    human_time(static_cast<std::uint64_t>(gap * 1000.0 + 0.5)) + " (" +
                    share_text(gap / b.timeline.total_ns) + " of end to end) around " +
                    std::to_string(b.timeline.launches.size()) +
                    (b.timeline.launches.size() == 1 ? " launch" : " launches");
  c.insight.where = "before launch " + std::to_string(worst) + " (" + b.subject.names[worst] +
                    "): " + human_time(static_cast<std::uint64_t>(worst_gap * 1000.0 + 0.5));
  c.insight.advice =
      "fewer, larger launches (neuronsim compile --mode fused), or keep the host ahead of the "
      "device (host.async, a deeper host.queue_depth)";
  c.row_resource = "host dispatch";
  c.row_relief = "removed";
  out.push_back(std::move(c));
}

}  // namespace

std::vector<InsightCandidate> find_insights(const Baseline& b) {
  std::vector<InsightCandidate> out;
  small_dma(b, out);
  semaphore_idle(b, out);
  port_conflicts(b, out);
  queue_on_one_engine(b, out);
  stationary_loads(b, out);
  host_gaps(b, out);
  return out;
}

}  // namespace neuronsim::whatif
