#include "report/summary_sum.hpp"

#include <algorithm>
#include <map>

namespace neuronsim::report {

namespace {

void add_engine_time(traces::EngineTime& sum, const traces::EngineTime& t) {
  sum.instruction_count += t.instruction_count;
  sum.busy_ps += t.busy_ps;
  sum.semaphore_wait_ps += t.semaphore_wait_ps;
  sum.port_wait_ps += t.port_wait_ps;
  sum.dma_wait_ps += t.dma_wait_ps;
  sum.idle_ps += t.idle_ps;
  sum.throttled_ps += t.throttled_ps;
  for (const auto& [who, ps] : t.semaphore_wait_by_source)
    sum.semaphore_wait_by_source[who] += ps;
}

}  // namespace

traces::Summary add_summaries(const std::vector<const traces::Summary*>& parts) {
  traces::Summary sum;
  if (!parts.empty()) sum.info = parts.front()->info;
  std::map<std::pair<int, int>, traces::OpStats> ops;
  for (const traces::Summary* s : parts) {
    sum.total_ps += s->total_ps;
    sum.neuroncore_cycle_count += s->neuroncore_cycle_count;
    for (int e = 0; e < isa::kEngineCount; ++e)
      add_engine_time(sum.engines[e], s->engines[e]);
    sum.dma_active_ps += s->dma_active_ps;
    sum.dma_transfer_total_bytes += s->dma_transfer_total_bytes;
    sum.dma_transfer_count += s->dma_transfer_count;
    for (int m = 0; m < 3; ++m) {
      sum.memory.read[m] += s->memory.read[m];
      sum.memory.written[m] += s->memory.written[m];
    }
    sum.model_flops += s->model_flops;
    sum.hardware_flops += s->hardware_flops;
    sum.peak_flops_per_s = std::max(sum.peak_flops_per_s, s->peak_flops_per_s);
    sum.device_time_ps += s->device_time_ps;
    for (const traces::OpStats& op : s->ops) {
      traces::OpStats& o = ops[{static_cast<int>(op.engine), static_cast<int>(op.opcode)}];
      o.min_ps = o.count ? std::min(o.min_ps, op.min_ps) : op.min_ps;
      o.max_ps = std::max(o.max_ps, op.max_ps);
      o.engine = op.engine;
      o.opcode = op.opcode;
      o.count += op.count;
      o.total_ps += op.total_ps;
    }
  }
  for (auto& [key, op] : ops) {
    op.mean_ps = op.count ? static_cast<double>(op.total_ps) / static_cast<double>(op.count) : 0;
    op.percent = sum.device_time_ps ? 100.0 * static_cast<double>(op.total_ps) /
                                          static_cast<double>(sum.device_time_ps)
                                    : 0;
    sum.ops.push_back(op);
  }
  std::stable_sort(sum.ops.begin(), sum.ops.end(),
                   [](const auto& a, const auto& b) { return a.total_ps > b.total_ps; });
  return sum;
}

}  // namespace neuronsim::report
