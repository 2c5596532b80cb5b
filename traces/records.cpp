#include "traces/records.hpp"

namespace neuronsim::traces {

bool SemaphoreWaitRecord::operator==(const SemaphoreWaitRecord& o) const {
  return semaphore == o.semaphore && wanted == o.wanted && value_at_ready == o.value_at_ready &&
         waited_ps == o.waited_ps && last_signaller == o.last_signaller;
}

bool InstructionRecord::operator==(const InstructionRecord& o) const {
  return engine == o.engine && opcode == o.opcode && index == o.index && ready_ps == o.ready_ps &&
         start_ps == o.start_ps && end_ps == o.end_ps && start_cycle == o.start_cycle &&
         end_cycle == o.end_cycle && semaphore_wait_ps == o.semaphore_wait_ps &&
         port_wait_ps == o.port_wait_ps && dma_wait_ps == o.dma_wait_ps &&
         throttle_ps == o.throttle_ps && semaphore_waits == o.semaphore_waits && bytes == o.bytes &&
         flops == o.flops;
}

const SemaphoreWaitRecord* longest_wait(const InstructionRecord& r) {
  const SemaphoreWaitRecord* longest = nullptr;
  for (const auto& w : r.semaphore_waits)
    if (w.waited_ps > 0 && (!longest || w.waited_ps > longest->waited_ps)) longest = &w;
  return longest;
}

bool DmaRecord::operator==(const DmaRecord& o) const {
  return queue == o.queue && dma_engine == o.dma_engine && issuer == o.issuer &&
         issuer_index == o.issuer_index && issue_ps == o.issue_ps && start_ps == o.start_ps &&
         end_ps == o.end_ps && src == o.src && dst == o.dst && bytes == o.bytes;
}

bool SemaphoreRecord::operator==(const SemaphoreRecord& o) const {
  return time_ps == o.time_ps && semaphore == o.semaphore && value == o.value && source == o.source;
}

}  // namespace neuronsim::traces
