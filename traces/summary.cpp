// SummaryBuilder: records -> Summary (summary.hpp), one record at a time.
#include "traces/summary.hpp"

#include <algorithm>
#include <cmath>

#include "base/limits.hpp"  // saturating_add: totals of a forged trace stop at 2^64-1
#include "traces/operand_text.hpp"

namespace neuronsim::traces {

std::uint64_t model_flops(const isa::Instruction& instr) {
  if (const auto* mx = std::get_if<isa::MatmulMx>(&instr.op))  // K: four lanes a partition
    return 2 * mx->k_rows() * mx->stationary.free_elems() * mx->moving.free_elems();
  const auto* mm = std::get_if<isa::Matmul>(&instr.op);
  if (!mm) return 0;
  // dst[M,N] = stationary[K,M]^T @ moving[K,N]: K*M*N multiply-adds, two flops each (K
  // twice the partitions in perf_mode double_row).
  return 2 * mm->k_rows() * mm->m_cols() * mm->n_cols();
}

SummaryBuilder::SummaryBuilder(const TraceInfo& info, SummaryOptions options) : options_(options) {
  s_.info = info;
  s_.peak_flops_per_s = options.peak_flops_per_s;
}

void SummaryBuilder::add(const Record& r) {
  std::visit([this](const auto& rec) { add(rec); }, r);
}

void SummaryBuilder::add(const InstructionRecord& r) {
  const auto e = static_cast<std::size_t>(r.engine);
  EngineTime& t = s_.engines[e];
  ++t.instruction_count;

  // Engine time is split over disjoint intervals, so the parts add up to the total even
  // if records were to overlap: busy is start -> end beyond what is already counted, and
  // the waits fit into the gap between the engine being ready and the start.
  std::uint64_t& cursor = engine_cursor_[e];
  const std::uint64_t start = std::max(r.start_ps, cursor);
  const std::uint64_t end = std::max(r.end_ps, start);
  const std::uint64_t ready = std::min(std::max(r.ready_ps, cursor), start);
  std::uint64_t gap = start - ready;
  auto take = [&gap](std::uint64_t want) {
    const std::uint64_t got = std::min(want, gap);
    gap -= got;
    return got;
  };
  const std::uint64_t sem = take(r.semaphore_wait_ps);
  t.semaphore_wait_ps = saturating_add(t.semaphore_wait_ps, sem);
  if (sem) {
    const SemaphoreWaitRecord* longest = longest_wait(r);
    auto& by_source = t.semaphore_wait_by_source[source_name(
        options_.kernel, longest ? longest->last_signaller : SignalSource{})];
    by_source = saturating_add(by_source, sem);
  }
  t.dma_wait_ps = saturating_add(t.dma_wait_ps, take(r.dma_wait_ps));
  t.port_wait_ps = saturating_add(t.port_wait_ps, take(r.port_wait_ps));
  t.busy_ps = saturating_add(t.busy_ps, end - start);
  t.throttled_ps = saturating_add(t.throttled_ps, std::min(r.throttle_ps, end - start));
  cursor = end;

  const std::uint64_t duration = r.end_ps >= r.start_ps ? r.end_ps - r.start_ps : 0;
  s_.device_time_ps = saturating_add(s_.device_time_ps, duration);
  OpStats& op = ops_[{static_cast<int>(r.engine), static_cast<int>(r.opcode)}];
  if (op.count == 0) {
    op.engine = r.engine;
    op.opcode = r.opcode;
    op.min_ps = duration;
  }
  ++op.count;
  op.total_ps = saturating_add(op.total_ps, duration);
  op.min_ps = std::min(op.min_ps, duration);
  op.max_ps = std::max(op.max_ps, duration);

  // A dma_copy's traffic is counted from its DMA records, not again here.
  if (r.opcode != isa::Opcode::dma_copy) {
    for (int m = 0; m < 3; ++m) {
      s_.memory.read[m] = saturating_add(s_.memory.read[m], r.bytes.read[m]);
      s_.memory.written[m] = saturating_add(s_.memory.written[m], r.bytes.written[m]);
    }
  }
  s_.hardware_flops = saturating_add(s_.hardware_flops, r.flops);
  if (r.opcode == isa::Opcode::matmul) {
    const std::optional<isa::Instruction> instr =
        options_.kernel ? find_instruction(*options_.kernel, r.engine, r.index) : std::nullopt;
    s_.model_flops +=
        instr && instr->opcode() == isa::Opcode::matmul ? model_flops(*instr) : r.flops;
  }
}

void SummaryBuilder::add(const DmaRecord& r) {
  ++s_.dma_transfer_count;
  s_.dma_transfer_total_bytes = saturating_add(s_.dma_transfer_total_bytes, r.bytes);
  s_.memory.read[static_cast<int>(r.src)] =
      saturating_add(s_.memory.read[static_cast<int>(r.src)], r.bytes);
  s_.memory.written[static_cast<int>(r.dst)] =
      saturating_add(s_.memory.written[static_cast<int>(r.dst)], r.bytes);
  if (r.end_ps > r.start_ps) dma_intervals_.emplace_back(r.start_ps, r.end_ps);
}

Summary SummaryBuilder::finish(std::uint64_t total_ps) {
  s_.total_ps = total_ps;
  s_.info.total_ps = total_ps;
  // ps * GHz / 1000 = cycles of the profiler's cycle counter (the header's clock), rounded to
  // the nearest cycle as the simulator counts them (engines/sim_time.hpp to_cycles), so a
  // profile and its run report the same count.
  s_.neuroncore_cycle_count = static_cast<std::uint64_t>(
      std::llround(static_cast<double>(total_ps) * s_.info.cycle_counter_ghz / 1000.0));

  for (EngineTime& t : s_.engines) {
    const std::uint64_t used = t.busy_ps + t.semaphore_wait_ps + t.port_wait_ps + t.dma_wait_ps;
    t.idle_ps = total_ps >= used ? total_ps - used : 0;  // the reader guarantees used <= total
  }

  std::sort(dma_intervals_.begin(), dma_intervals_.end());
  std::uint64_t covered_to = 0;
  for (const auto& [start, end] : dma_intervals_) {
    const std::uint64_t from = std::max(start, covered_to);
    if (end > from) s_.dma_active_ps = saturating_add(s_.dma_active_ps, end - from);
    covered_to = std::max(covered_to, end);
  }

  for (auto& [key, op] : ops_) {
    op.mean_ps = static_cast<double>(op.total_ps) / static_cast<double>(op.count);
    op.percent = s_.device_time_ps ? 100.0 * static_cast<double>(op.total_ps) /
                                         static_cast<double>(s_.device_time_ps)
                                   : 0.0;
    s_.ops.push_back(op);
  }
  std::stable_sort(s_.ops.begin(), s_.ops.end(),
                   [](const OpStats& a, const OpStats& b) { return a.total_ps > b.total_ps; });

  if (s_.peak_flops_per_s > 0 && total_ps > 0)
    s_.mfu_estimated_percent =
        100.0 * static_cast<double>(s_.model_flops) / (s_.total_time_s() * s_.peak_flops_per_s);
  return s_;
}

Summary summarize(const TraceData& trace, const SummaryOptions& options) {
  SummaryBuilder b(trace.info, options);
  for (const auto& r : trace.instructions)
    b.add(r);
  for (const auto& r : trace.dmas)
    b.add(r);
  return b.finish(trace.info.total_ps);
}

Summary summarize_ntff(const std::string& path, const SummaryOptions& options) {
  NtffReader reader(path);
  SummaryBuilder b(reader.info(), options);
  Record r;
  while (reader.next(r))
    b.add(r);
  return b.finish(reader.info().total_ps);
}

}  // namespace neuronsim::traces
