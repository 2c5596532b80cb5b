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
  info.cycle_counter_ghz = config.cycle_counter_ghz;
  return info;
}

TraceRecorder::TraceRecorder(const std::string& path, const traces::TraceInfo& info)
    : writer_(path, info) {}

void TraceRecorder::on_instruction_end(const traces::InstructionRecord& r) {
  writer_.add(r);
}

void TraceRecorder::on_dma_end(const traces::DmaRecord& r) {
  writer_.add(r);
}

void TraceRecorder::on_semaphore_update(const traces::SemaphoreRecord& r) {
  writer_.add(r);
}

void TraceRecorder::finish(std::uint64_t total_ps) {
  writer_.close(total_ps);
}

}  // namespace neuronsim::profile
