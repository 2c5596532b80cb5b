#pragma once
// Event-driven sharing of HBM bandwidth among the transfers in flight (processor
// sharing), in two levels. Each flow belongs to a port (one per initiator bound to the
// HBM, i.e. per NeuronCore) and has a cap (its DMA engine's rate). The chip's bandwidth is
// split max-min fairly between the ports, each port asking for no more than its own cap
// and the sum of its flows' caps; within a port, its share is split max-min fairly between
// its flows (water-filling: no flow gets more than its cap, the rest is split evenly).
// Whenever the set of active flows changes, the bytes left of every flow are brought up to
// date, rates are recomputed and one wake-up is scheduled for the next completion: no
// per-cycle ticking.
#include <cstdint>
#include <vector>

#include <systemc>

namespace neuronsim::memory {

// How long `bytes` take at `bytes_per_ns`, rounded up to the time resolution (so a flow is
// really done when its time has passed).
sc_core::sc_time transfer_time(double bytes, double bytes_per_ns);

class BandwidthShare : public sc_core::sc_module {
 public:
  struct Flow {
    double remaining_bytes = 0;   // at start(); the bytes left are then tracked here
    double cap_bytes_per_ns = 0;  // > 0
    unsigned port = 0;
    sc_core::sc_event* done = nullptr;  // notified when the last byte has moved
  };

  SC_HAS_PROCESS(BandwidthShare);
  // A limit <= 0 never limits.
  BandwidthShare(sc_core::sc_module_name name, double chip_bytes_per_ns, double port_bytes_per_ns);

  // Starts moving a flow now; called from a SystemC process. The flow is copied; its
  // `done` event must stay alive until it fires.
  void start(const Flow& flow);

 private:
  void wake();     // the scheduled completion time arrived
  void advance();  // account the bytes moved since the last change
  // Recompute rates, schedule the next completion. next_known_ still set means the only
  // change since the last call is the flow start() appended.
  void reschedule();
  bool all_at_cap() const;  // no limit binds: every flow's rate is its cap
  void share_all();         // the water-filling, when a limit binds
  void finish_completed();
  void share_port(std::size_t begin, std::size_t end, double left);
  struct Active;
  void count_cap(const Active& f, int sign);  // +1 on start, -1 on completion

  // A flow in flight, kept in one contiguous array (the Flow itself lives on its
  // initiator's stack, a different page for every DMA thread; every event touches every
  // active flow, so the copy is what keeps that cheap).
  struct Active {
    double remaining_bytes;
    double cap_bytes_per_ns;
    double rate;  // current bytes per ns
    unsigned port;
    sc_core::sc_event* done;
  };
  // Scratch of share_all(), kept so that it allocates nothing per event.
  struct Entry {
    Active* flow;
    std::size_t order;  // index in active_ (start order): the tie-break
  };
  struct PortDemand {
    std::size_t begin = 0, end = 0;  // its flows in by_port_
    double demand = 0, granted = 0;
  };
  std::vector<Entry> by_port_;
  std::vector<PortDemand> ports_;       // in port order
  std::vector<std::size_t> by_demand_;  // indices into ports_, smallest demand first
  // Active flows' caps, summed in fixed point (count_cap), by port and for the chip.
  std::vector<std::int64_t> port_caps_;
  std::int64_t chip_caps_ = 0;
  int huge_caps_ = 0;            // active flows whose cap is too large to sum in fixed point
  bool rates_are_caps_ = false;  // the last reschedule() set every rate to its cap
  bool next_known_ = false;      // next_ns_ is up to date for active_ as it is
  double next_ns_ = 0;           // earliest remaining_bytes / rate over active_

  double chip_bytes_per_ns_, port_bytes_per_ns_;
  std::vector<Active> active_;  // in start order (deterministic)
  sc_core::sc_time last_update_;
  sc_core::sc_event wake_event_;
};

}  // namespace neuronsim::memory
