#pragma once
// Records a run as an NTFF trace (reference section 7): an engines::Observer that streams
// each trace event of the simulation, as the engines emitted it, to a traces::NtffWriter
// as it happens. Nothing is buffered beyond the writer's fixed buffer, so memory does not
// grow with the run. NTFF delta-encodes each kind against its previous record and asks
// for no global order, so records go out in event order: an instruction when it ends, a
// DMA piece when its last byte lands, a semaphore when it changes.
#include <array>
#include <cstdint>
#include <string>

#include "config/target_config.hpp"
#include "engines/observer.hpp"
#include "isa/kernel.hpp"
#include "traces/ntff.hpp"

namespace neuronsim::profile {

// The trace header of `kernel` run on `config`, paired with the NEFF whose hash is given.
traces::TraceInfo trace_info(const isa::Kernel& kernel, const config::TargetConfig& config,
                             const std::array<std::uint8_t, 32>& neff_hash);

class TraceRecorder : public engines::Observer {
 public:
  // Starts writing `path` (a temporary file until finish()).
  TraceRecorder(const std::string& path, const traces::TraceInfo& info);

  void on_instruction_end(const traces::InstructionRecord& r) override;
  void on_dma_end(const traces::DmaRecord& r) override;
  void on_semaphore_update(const traces::SemaphoreRecord& r) override;

  // Writes the trailer and moves the trace into place. Without it (an error, an
  // exception), the destructor removes the temporary file.
  void finish(std::uint64_t total_ps);
  void abandon() { writer_.abandon(); }

  const traces::RecordCounts& counts() const { return writer_.counts(); }
  std::uint64_t bytes_written() const { return writer_.bytes_written(); }

 private:
  traces::NtffWriter writer_;
};

}  // namespace neuronsim::profile
