#pragma once
// neuronsim::NeuronCore: one NeuronCore (Tensor, Vector, Scalar, GpSimd and Sync engines,
// SBUF, PSUM, 16 DMA engines) as a SystemC component that lives in someone else's
// simulation (docs/embedding.md). It never calls sc_start. Kernels are launched onto it
// at any simulated time, as many as wanted; launches run one after another in launch
// order, as the Neuron runtime serialises them on one core. Several cores can share one
// simulation (neuronsim::Device holds a chip's worth around one HBM).
//
// Bind `hbm` to an HBM model (neuronsim::Hbm, or your memory or interconnect) before the
// simulation starts. `regs` and `irq` are for a register-level host; a C++ embedder can
// ignore them and call launch().
#include <cstdint>
#include <memory>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "neuronsim/config.hpp"
#include "neuronsim/launch.hpp"
#include "neuronsim/tlm.hpp"

namespace neuronsim {

enum class OtherTargetKernels { refuse, warn, run };

// NEURONSIM_CHECK_PROTOCOL is set and is not "0" (read once per process).
bool protocol_checks_from_environment();

struct CoreOptions {
  // The core's window of the device HBM address space: tensors a launch does not place
  // itself are placed here, from the start, for the time of the launch. Window bytes 0:
  // from the base up to the end of the memory the core is bound to, found at the end of
  // elaboration by reading one byte at a time with transport_dbg (docs/embedding.md).
  std::uint64_t hbm_window_base = 0;
  std::uint64_t hbm_window_bytes = 0;
  // Two cores of one simulation whose windows overlap in one memory are refused at the end
  // of elaboration, unless both say here that they may (they share it on purpose, or are on
  // separate memories that grant no DMI, which the core cannot tell apart).
  bool share_window = false;
  // A kernel built for another target than the core's (isa::Kernel::target, a NEFF's
  // target): a different NeuronCore generation, or a target name the core cannot place.
  // refuse: launch() throws (a doorbell launch fails, its reason in the error text); warn:
  // SC_REPORT_WARNING "neuronsim/target" once per kernel, then it runs; run: it runs. A
  // launch may allow it itself (LaunchRequest::other_target).
  OtherTargetKernels other_target_kernels = OtherTargetKernels::refuse;
  // Check every HBM transaction of this core against the TLM-2.0 base protocol
  // (neuronsim/protocol_checker.hpp says which rules); a broken rule fails the launch,
  // naming it. Costs a few comparisons per transaction. Default: on when the environment
  // sets NEURONSIM_CHECK_PROTOCOL to anything but "0" (the test suite does).
  bool check_protocol = protocol_checks_from_environment();
};

class NeuronCore : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<NeuronCore> hbm;  // to HBM (neuronsim/tlm.hpp)
  // The register block (neuronsim/tlm.hpp); binding it is optional.
  tlm_utils::simple_target_socket_optional<NeuronCore> regs;
  // High while kIntStatus & kIntEnable != 0. Written by the core and by register writes.
  sc_core::sc_signal<bool, sc_core::SC_MANY_WRITERS> irq;
  sc_core::sc_event launch_finished;  // notified when any launch is done
  // Optional reset input: a rising edge resets the core (reset()). Binding it is optional.
  sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> rst;
  // Optional clock input, bound to an sc_clock: its frequency becomes the Tensor engine's
  // clock, and the Vector, Scalar and GpSimd clocks keep their ratios to it (the target's
  // clocks.*_ghz); DMA and HBM figures, in bytes/ns, stay. Read at the end of
  // elaboration; the core never samples its edges (event-driven, nothing ticks).
  sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> clk;

  NeuronCore(sc_core::sc_module_name name, const TargetConfig& config,
             const CoreOptions& options = {});
  ~NeuronCore() override;

  // Queues a launch. Throws neuronsim::Error at once if the kernel is invalid for the
  // target, a named tensor does not exist or an input has the wrong size; every later
  // failure (a deadlock, say) ends the launch with LaunchResult::error set.
  LaunchHandle launch(LaunchRequest request);

  // Back to the state after construction, in the next delta cycle: queued launches end
  // failed without running, a running one fails ("reset while the launch ran"), and the
  // register block is cleared (irq low). Launches may be queued again at once.
  void reset();

  bool idle() const;  // nothing queued or running
  std::uint64_t launches_finished() const;
  const TargetConfig& config() const;
  const char* kind() const override { return "neuronsim::NeuronCore"; }

  // The window launches place tensors in (CoreOptions; sized from the memory at the end of
  // elaboration when its size was 0): [first, last], inclusive.
  std::uint64_t window_first() const;
  std::uint64_t window_last() const;

 private:
  void end_of_elaboration() override;
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
  void register_access(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int register_debug(tlm::tlm_generic_payload& trans);

  std::unique_ptr<detail::CoreState> state_;
};

}  // namespace neuronsim
