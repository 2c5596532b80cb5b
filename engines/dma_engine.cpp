#include "engines/dma_engine.hpp"

#include <algorithm>

#include "engines/sim_time.hpp"
#include "engines/thread_stack.hpp"

namespace neuronsim::engines {

DmaEngine::DmaEngine(sc_core::sc_module_name name, const isa::DmaParams& params,
                     BandwidthShare& bandwidth, FailureSink& failure, PartHook on_start,
                     PartHook on_done)
    : sc_module(name),
      params_(params),
      bandwidth_(bandwidth),
      failure_(failure),
      on_start_(std::move(on_start)),
      on_done_(std::move(on_done)),
      queues_(std::max<std::uint32_t>(1, params.queues_per_engine)) {
  SC_THREAD(run);
  set_stack_size(kThreadStackBytes);
}

void DmaEngine::enqueue(DmaPart* part) {
  queues_.at(part->plan.hw_queue % queues_.size()).push_back(part);
  work_.notify(sc_core::SC_ZERO_TIME);
}

DmaPart* DmaEngine::next_part() {
  const std::size_t n = queues_.size();
  const std::size_t first = params_.strict_priority ? 0 : next_queue_;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t q = (first + k) % n;
    if (queues_[q].empty()) continue;
    DmaPart* part = queues_[q].front();
    queues_[q].pop_front();
    next_queue_ = (q + 1) % n;
    return part;
  }
  return nullptr;
}

void DmaEngine::run() {
  try {
    for (;;) {
      DmaPart* part = next_part();
      if (!part) {
        sc_core::wait(work_);
        continue;
      }
      part->start = sc_core::sc_time_stamp();
      on_start_(*part);
      sc_core::wait(from_ns(params_.descriptor_ns + params_.fixed_latency_ns));
      BandwidthShare::Flow flow;
      flow.remaining_bytes = static_cast<double>(part->plan.bytes);
      flow.cap_bytes_per_ns = params_.engine_bytes_per_ns * part->efficiency;
      flow.shares_hbm = part->touches_hbm;
      flow.done = &flow_done_;
      bandwidth_.start(&flow);
      sc_core::wait(flow_done_);
      busy_ += sc_core::sc_time_stamp() - part->start;
      on_done_(*part);  // may free the part
    }
  } catch (...) {
    failure_.fail(std::current_exception());
  }
}

}  // namespace neuronsim::engines
