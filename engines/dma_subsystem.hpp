#pragma once
// The DMA subsystem of one NeuronCore: the DMA engines, the kernel's queues and the HBM
// bandwidth they share (reference sections 1 and 4). An engine hands it a dma_copy and
// moves on (it pays nothing), unless the kernel queue already holds queue_depth
// transfers, in which case the issuing engine waits for one to complete.
// When every part of a transfer has completed, its data moves (isa::execute, in one go at
// completion time) and its semaphore signals are applied once. The hardware has each DMA
// engine increment a completion semaphore, so waiters wait for the count of engines used
// (reference section 4); one signal per transfer keeps kernels independent of the split.
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <systemc>

#include "engines/bandwidth_share.hpp"
#include "engines/dma_engine.hpp"
#include "engines/dma_transfer.hpp"
#include "engines/failure.hpp"
#include "engines/observer.hpp"
#include "engines/semaphores.hpp"
#include "engines/write_watch.hpp"
#include "isa/kernel.hpp"
#include "memory/memory_image.hpp"

namespace neuronsim::engines {

struct DmaCounters {
  std::uint64_t transfers = 0;               // completed dma_copy instructions
  std::uint64_t parts = 0;                   // completed per-DMA-engine parts
  std::uint64_t bytes = 0;                   // bytes moved (dma_transfer_bytes)
  BytesBySpace read_bytes{}, write_bytes{};  // by isa::MemSpace
  sc_core::sc_time last_completion;
};

class DmaSubsystem : public sc_core::sc_module {
 public:
  // memory may be null (timing only: nothing moves).
  DmaSubsystem(sc_core::sc_module_name name, const isa::Kernel& kernel,
               const isa::DmaParams& params, memory::MemoryImage* memory, Semaphores& semaphores,
               WriteWatch& written, const Observers& observers, FailureSink& failure);

  // Called by an engine's SystemC thread; returns once the transfer is queued.
  void issue(const isa::Instruction& instr, isa::Engine issuer, std::uint32_t index);

  std::size_t outstanding() const { return transfers_.size(); }
  const DmaCounters& counters() const { return counters_; }
  // Time each kernel queue had at least one transfer outstanding.
  sc_core::sc_time queue_busy_time(std::size_t queue) const;
  sc_core::sc_time engine_busy_time(std::size_t dma_engine) const;
  std::size_t engine_count() const { return engines_.size(); }

 private:
  struct QueueState {
    std::uint32_t outstanding = 0;
    sc_core::sc_time busy_since, busy;
    std::unique_ptr<sc_core::sc_event> freed = std::make_unique<sc_core::sc_event>();
  };
  void part_started(DmaPart& part);
  void part_done(DmaPart& part);
  void complete(DmaTransfer& t);
  DmaRecord record(const DmaPart& part) const;

  const isa::Kernel& kernel_;
  const isa::DmaParams& params_;
  memory::MemoryImage* memory_;
  Semaphores& semaphores_;
  WriteWatch& written_;
  const Observers& observers_;
  FailureSink& failure_;
  BandwidthShare bandwidth_;
  std::vector<std::unique_ptr<DmaEngine>> engines_;
  std::vector<QueueState> queues_;
  std::map<std::uint32_t, std::unique_ptr<DmaTransfer>> transfers_;  // in flight, by id
  std::uint32_t next_id_ = 0;
  DmaCounters counters_;
};

}  // namespace neuronsim::engines
