#include "profile/trace_recorder.hpp"

namespace neuronsim::profile {

traces::TraceInfo trace_info(const isa::Kernel& kernel, const config::TargetConfig& config,
                             const std::array<std::uint8_t, 32>& neff_hash) {
  traces::TraceInfo info;
  info.neff_hash = neff_hash;
  info.kernel_name = kernel.name;
  info.target = config.name;
  for (int e = 0; e < isa::kEngineCount; ++e)
    info.engine_ghz[e] = config.clock_ghz(static_cast<isa::Engine>(e));
  return info;
}

traces::Agent to_agent(const engines::SignalSource& s) {
  using K = engines::SignalSource::Kind;
  switch (s.kind) {
    case K::engine:
      return {traces::Agent::Kind::engine, static_cast<std::uint16_t>(s.engine)};
    case K::dma_queue:
      return {traces::Agent::Kind::dma_queue, s.queue};
    case K::initial:
      break;
  }
  return {};  // the initial value: nobody signalled
}

traces::InstructionRecord to_record(const engines::InstructionRecord& r) {
  traces::InstructionRecord t;
  t.engine = r.engine;
  t.opcode = r.opcode;
  t.index = r.index;
  t.ready_ps = r.ready_ps;
  t.start_ps = r.start_ps;
  t.end_ps = r.end_ps;
  t.start_cycle = r.start_cycle;
  t.end_cycle = r.end_cycle;
  // engines/engine.cpp measures the three waits back to back between ready and start
  // (semaphores, then the DMA queue for dma_copy or the ports otherwise), so they already
  // lie within ready..start as traces/summary assumes; copied unchanged.
  t.semaphore_wait_ps = r.semaphore_wait_ps;
  t.port_wait_ps = r.port_wait_ps;
  t.dma_wait_ps = r.dma_queue_wait_ps;
  const engines::SemaphoreWaitRecord* longest = nullptr;
  for (const auto& w : r.semaphore_waits)
    if (w.waited_ps > 0 && (!longest || w.waited_ps > longest->waited_ps)) longest = &w;
  if (longest) {
    t.waited_semaphore = longest->sem;
    t.waited_for = to_agent(longest->last_signaller);
  }
  for (int m = 0; m < engines::kMemSpaceCount; ++m) {
    t.bytes.read[m] = r.read_bytes[m];
    t.bytes.written[m] = r.write_bytes[m];
  }
  t.flops = r.flops;
  return t;
}

traces::DmaRecord to_record(const engines::DmaRecord& r) {
  traces::DmaRecord t;
  t.queue = r.queue;
  t.dma_engine = r.dma_engine;
  t.issuer = r.issuer;
  t.issuer_index = r.issuer_index;
  t.issue_ps = r.queued_ps;
  t.start_ps = r.start_ps;
  t.end_ps = r.end_ps;
  t.src = r.src_space;
  t.dst = r.dst_space;
  t.bytes = r.bytes;
  return t;
}

traces::SemaphoreRecord to_record(const engines::SemaphoreRecord& r) {
  traces::SemaphoreRecord t;
  t.time_ps = r.time_ps;
  t.semaphore = r.sem;
  t.value = r.value;
  t.source = to_agent(r.source);
  return t;
}

TraceRecorder::TraceRecorder(const std::string& path, const traces::TraceInfo& info)
    : writer_(path, info) {}

void TraceRecorder::on_instruction_end(const engines::InstructionRecord& r) {
  writer_.add(to_record(r));
}

void TraceRecorder::on_dma_end(const engines::DmaRecord& r) {
  writer_.add(to_record(r));
}

void TraceRecorder::on_semaphore_update(const engines::SemaphoreRecord& r) {
  writer_.add(to_record(r));
}

void TraceRecorder::finish(std::uint64_t total_ps) {
  writer_.close(total_ps);
}

}  // namespace neuronsim::profile
