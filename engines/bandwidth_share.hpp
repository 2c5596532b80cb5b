#pragma once
// Event-driven sharing of HBM bandwidth among the DMA transfers in flight (processor
// sharing). Each flow has a cap (its DMA engine's rate); flows that touch HBM share
// hbm_bytes_per_ns max-min fairly (water-filling: no flow gets more than its cap, the
// rest is split evenly). Whenever the set of active flows changes, the bytes left of every
// flow are brought up to date, rates are recomputed and one wake-up is scheduled for the
// next completion: no per-cycle ticking.
#include <vector>

#include <systemc>

namespace neuronsim::engines {

class BandwidthShare : public sc_core::sc_module {
 public:
  struct Flow {
    double remaining_bytes = 0;
    double cap_bytes_per_ns = 0;  // > 0
    bool shares_hbm = false;
    double rate = 0;                    // current bytes per ns (set here)
    sc_core::sc_event* done = nullptr;  // notified when the last byte has moved
  };

  SC_HAS_PROCESS(BandwidthShare);
  // hbm_bytes_per_ns <= 0: HBM never limits.
  BandwidthShare(sc_core::sc_module_name name, double hbm_bytes_per_ns);

  // Starts moving a flow now; called from a SystemC process. The flow must stay alive
  // until `done` fires.
  void start(Flow* flow);

 private:
  void wake();        // the scheduled completion time arrived
  void advance();     // account the bytes moved since the last change
  void reschedule();  // recompute rates, schedule the next completion
  void finish_completed();

  double hbm_bytes_per_ns_;
  std::vector<Flow*> active_;  // in start order (deterministic)
  sc_core::sc_time last_update_;
  sc_core::sc_event wake_event_;
};

}  // namespace neuronsim::engines
