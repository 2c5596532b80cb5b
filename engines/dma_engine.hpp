#pragma once
// One DMA engine (reference section 4): queues_per_engine FIFO queues, served round-robin
// (strict priority, lowest queue first, when the target says so), one part at a time.
// A part costs descriptor_ns (descriptor generation) + fixed_latency_ns (first byte),
// then moves its bytes at engine_bytes_per_ns x efficiency, sharing HBM with the other
// engines' parts through BandwidthShare.
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include <systemc>

#include "engines/bandwidth_share.hpp"
#include "engines/dma_transfer.hpp"
#include "engines/failure.hpp"
#include "isa/cost_params.hpp"

namespace neuronsim::engines {

class DmaEngine : public sc_core::sc_module {
 public:
  using PartHook = std::function<void(DmaPart&)>;

  SC_HAS_PROCESS(DmaEngine);
  DmaEngine(sc_core::sc_module_name name, const isa::DmaParams& params, BandwidthShare& bandwidth,
            FailureSink& failure, PartHook on_start, PartHook on_done);

  void enqueue(DmaPart* part);  // from any SystemC process
  sc_core::sc_time busy_time() const { return busy_; }

 private:
  void run();
  DmaPart* next_part();

  const isa::DmaParams& params_;
  BandwidthShare& bandwidth_;
  FailureSink& failure_;
  PartHook on_start_, on_done_;
  std::vector<std::deque<DmaPart*>> queues_;
  std::size_t next_queue_ = 0;  // round-robin pointer
  sc_core::sc_event work_;
  sc_core::sc_event flow_done_;
  sc_core::sc_time busy_;
};

}  // namespace neuronsim::engines
