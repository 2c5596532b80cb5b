#pragma once
// The DMA subsystem of one NeuronCore: the DMA engines, the hardware descriptor
// generators (DGE) and, per launch, the kernel's queues (reference sections 1 and 4;
// docs/simulation.md "DMA"). An engine hands it a dma_copy and moves on, unless the kernel
// queue already holds queue_depth transfers (the issuer waits for one to complete) or the
// issuer is GpSimd, which makes the descriptors itself (software DGE). A hardware DGE
// block takes descriptor_ns per dma_copy beside the engines; its parts then queue on the
// DMA engines that serve their partitions.
// A transfer's data is made in one go (isa::execute): into SBUF or PSUM when its last
// part completes, into HBM when its first part starts, so that the HBM parts carry it in
// their payloads; its semaphore signals are applied once, when every part has completed. The
// hardware has each DMA engine increment a completion semaphore, so waiters wait for the count of
// engines used (reference section 4); one signal per transfer keeps kernels independent of the
// split. The DMA engines live as long as the core; begin() hands them a launch.
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include <systemc>

#include "engines/dma_descriptors.hpp"
#include "engines/dma_engine.hpp"
#include "engines/dma_stats.hpp"
#include "engines/dma_transfer.hpp"
#include "engines/hbm_link.hpp"
#include "engines/launch_context.hpp"
#include "engines/observer.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::engines {

class DmaSubsystem : public sc_core::sc_module {
 public:
  DmaSubsystem(sc_core::sc_module_name name, const params::DmaParams& params, HbmLink& hbm);

  // A launch begins (nothing is outstanding): its context, the device HBM address of each
  // of its tensors and the core's copy of each, that writes into HBM carry (DMI or staged;
  // empty when timing only) and that reads from HBM may land in (DMI only: a staged copy
  // is the core's, newer than the memory while a write is in flight; null: a scratch
  // buffer). All must stay alive until the launch has drained.
  void begin(LaunchContext& launch, const std::vector<std::uint64_t>& tensor_addresses,
             const std::vector<std::uint8_t*>& write_from,
             const std::vector<std::uint8_t*>& read_into);
  // The launch failed: transfers still in flight complete without moving data or
  // signalling; `drained` is notified when none is left.
  void abort();
  sc_core::sc_event drained;

  // Issuing a dma_copy, from the issuing engine's SystemC thread, in three steps:
  // claim() waits until the kernel queue has room and takes a place in it;
  // issuer_time() is how long the issuer itself works on the descriptors (software DGE);
  // submit() then hands the transfer over: its descriptors are made (a hardware DGE block,
  // or none to make) and its parts queue on their DMA engines. submit() never waits.
  void claim(const isa::Instruction& instr, isa::Engine issuer, std::uint32_t index);
  sc_core::sc_time issuer_time(const isa::Instruction& instr, isa::Engine issuer) const;
  void submit(const isa::Instruction& instr, isa::Engine issuer, std::uint32_t index);

  std::size_t outstanding() const { return in_flight_; }
  // The launch's statistics groups so far: its transfers, its HBM traffic, each of the
  // kernel's queues (in the kernel's order) and each DMA engine.
  const DmaStats& stats() const { return stats_; }
  HbmStats hbm_stats() const;
  std::vector<DmaQueueStats> queue_stats() const;
  std::vector<DmaEngineStats> engine_stats() const;
  // When the launch's last transfer completed, from its start.
  sc_core::sc_time last_completion() const { return last_completion_; }

 private:
  struct QueueState {
    std::uint32_t outstanding = 0;
    sc_core::sc_time busy_since, busy;
    std::unique_ptr<sc_core::sc_event> freed = std::make_unique<sc_core::sc_event>();
  };
  void part_started(DmaPart& part);
  void part_done(DmaPart& part);
  void complete(DmaTransfer& t);
  void execute(DmaTransfer& t);  // the transfer's data, once
  void fail(std::exception_ptr error);
  void fail(const DmaPart& part, std::exception_ptr error);  // names the instruction
  void place(DmaPart& part, const isa::DmaCopy& copy) const;
  traces::DmaRecord record(const DmaPart& part) const;

  const params::DmaParams& params_;
  LaunchContext* launch_ = nullptr;
  const std::vector<std::uint64_t>* addresses_ = nullptr;
  const std::vector<std::uint8_t*>* write_from_ = nullptr;
  const std::vector<std::uint8_t*>* read_into_ = nullptr;
  bool aborted_ = false;
  std::vector<std::unique_ptr<DmaEngine>> engines_;
  std::vector<QueueState> queues_;
  std::vector<sc_core::sc_time> dge_free_;  // when each hardware DGE block is next free
  // Every transfer object made so far; those not in flight are in free_, to be reused
  // (no allocation per dma_copy once the pool has grown to the most in flight at once).
  std::vector<std::unique_ptr<DmaTransfer>> pool_;
  std::vector<DmaTransfer*> free_;
  std::size_t in_flight_ = 0;
  std::vector<DmaPartPlan> plans_;  // split_transfer's scratch
  std::uint32_t next_id_ = 0;
  DmaStats stats_;
  sc_core::sc_time last_completion_;
};

}  // namespace neuronsim::engines
