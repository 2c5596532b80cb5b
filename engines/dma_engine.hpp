#pragma once
// One DMA engine (reference section 4; nki/about/nki-dma-overview.rst): queues_per_engine
// FIFO queues, in order within a queue, served round-robin (strict priority, lowest queue
// first, when the target says so), moving one part's data at a time.
// Fixed costs are latency, not occupancy: a part becomes ready fixed_latency_ns after its
// descriptors reach the engine (DmaPart::ready), and that wait overlaps the data phase of
// the parts ahead of it, so a stream of transfers keeps the engine moving bytes and the
// latency shows once per dependency chain. Only queue heads that are ready compete; with
// none ready the engine sleeps until the earliest is, or new work arrives (no ticking).
// The data phase moves the part's bytes at engine_bytes_per_ns x efficiency: a part that
// touches HBM as one b_transport through the core's HBM link (the HBM model shares its
// bandwidth between every transfer in flight), an SBUF-to-SBUF part on its own.
// The engine is the core's for its whole life; its thread serves every launch.
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <vector>

#include <systemc>
#include <tlm>

#include "engines/dma_stats.hpp"
#include "engines/dma_transfer.hpp"
#include "engines/hbm_link.hpp"
#include "params/dma_params.hpp"

namespace neuronsim::engines {

class DmaEngine : public sc_core::sc_module {
 public:
  using PartHook = std::function<void(DmaPart&)>;
  using FailHook = std::function<void(DmaPart&, std::exception_ptr)>;

  SC_HAS_PROCESS(DmaEngine);
  DmaEngine(sc_core::sc_module_name name, std::uint32_t index, const params::DmaParams& params,
            HbmLink& hbm, PartHook on_start, PartHook on_done, FailHook on_fail);

  void enqueue(DmaPart* part);   // from any SystemC process
  void reset();                  // a launch begins (the engine is idle): counters, round-robin
  DmaEngineStats stats() const;  // since the last reset()

 private:
  void run();
  // The next ready queue head in service order, or null; `earliest` gets the soonest
  // ready time of a queue head that is not ready yet (SC_ZERO_TIME: none waiting).
  DmaPart* next_part(sc_core::sc_time& earliest);
  void move(DmaPart& part);                             // the data phase
  void peek(const DmaPart& part, std::uint64_t bytes);  // the memory's bytes into scratch_

  std::uint32_t index_;
  const params::DmaParams& params_;
  HbmLink& hbm_;
  PartHook on_start_, on_done_;
  FailHook on_fail_;
  std::vector<std::deque<DmaPart*>> queues_;
  // Bit q % 64 of word q / 64 is set while queue q holds parts: next_part() visits only
  // those (most of a target's 16 queues are empty in most kernels).
  std::vector<std::uint64_t> nonempty_;
  std::size_t next_queue_ = 0;  // round-robin pointer
  sc_core::sc_event work_;
  sc_core::sc_time busy_;
  tlm::tlm_generic_payload payload_;  // owns its DmaRateExtension
  // The payload's data when the part's bytes are not the core's copy as they stand: a
  // timing-only part, or one that runs past its tensor's end (a broadcast or a widening cast
  // moves more bytes than the HBM range holds): the range repeated (streaming width).
  std::vector<std::uint8_t> scratch_;
};

}  // namespace neuronsim::engines
