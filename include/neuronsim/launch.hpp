#pragma once
// One kernel launch on a NeuronCore: what the embedder asks for (LaunchRequest), what it
// gets back once the launch is done (LaunchResult) and the handle it waits on (Launch).
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "neuronsim/kernel.hpp"
#include "neuronsim/observer.hpp"
#include "neuronsim/statistics.hpp"

namespace neuronsim {

namespace detail {
class CoreState;
}  // namespace detail

using TensorBytes = std::map<std::string, std::vector<std::uint8_t>>;  // by tensor name

struct LaunchResult;

struct LaunchRequest {
  // Checked against the core's target by launch(). A core checks and plans a kernel once
  // and reuses that for later launches of the same object (by identity, up to 16 kernels),
  // so the kernel must not change once launched: launch a new Kernel object instead.
  std::shared_ptr<const Kernel> kernel;
  std::string source = "kernel";  // names the kernel (its file) in messages
  // HBM addresses of tensors the caller has placed (by name). Their bytes are the caller's:
  // the launch neither fills them nor copies them back unless they are named in `inputs`
  // or are outputs and `collect_outputs` is set. Every other tensor is placed in the core's
  // own HBM window when the launch starts: constants get the NEFF's data, inputs the bytes
  // of `inputs`, the rest the fill (zero, or poisoned with fill_uninitialised).
  std::map<std::string, std::uint64_t> tensor_addresses;
  TensorBytes inputs;           // copied into the input tensors when the launch starts
  bool collect_outputs = true;  // copy every output tensor into LaunchResult::outputs
  bool timing_only = false;     // no data moves and nothing computes; timing is identical
  // SBUF, PSUM and placed tensors start poisoned: floats NaN, integers the target's
  // sbuf.uninitialised_int_fill (docs/simulation.md).
  bool fill_uninitialised = false;
  // Run the kernel even if it was built for another target than the core's (the caller
  // chose the core's target on purpose, as `neuronsim run -t` does), whatever
  // CoreOptions::other_target_kernels says.
  bool other_target = false;
  std::vector<Observer*> observers;  // must outlive the launch
  // Called inside the simulation when the launch is done (after `done` is notified).
  std::function<void(const LaunchResult&)> on_done;
};

struct LaunchResult {
  std::uint64_t id = 0;  // per core, from 0, in launch order
  // Empty when the launch ran to completion; else why it stopped (a deadlock names every
  // blocked engine). `exception` holds the same error.
  std::string error;
  std::exception_ptr exception;
  bool ok() const { return error.empty(); }
  void rethrow_if_failed() const {
    if (exception) std::rethrow_exception(exception);
  }
  // Simulated time (absolute): launch() was called, the core started the launch, the
  // result was complete (`done`). A failed launch is done once its DMA transfers in
  // flight have drained, which may be after the failure.
  sc_core::sc_time queued, started, finished;
  // The launch's device time, exact: from `started` to its last instruction or transfer
  // (finished - started when it ran to completion), or to the failure or deadlock.
  std::uint64_t total_ps = 0;
  double total_ns = 0;
  // Total time in cycles of the hardware profiler's cycle counter (clocks.cycle_counter_ghz:
  // 1.4 GHz on trn1, 1.2 on trn2/trn3), as its neuroncore_cycle_count; stats.core.clock_cycles
  // holds the total in each engine's own clock.
  std::uint64_t neuroncore_cycle_count = 0;
  // Every module's statistics (<neuronsim/statistics.hpp>): per engine (stats.engines,
  // where each engine's time went), DMA, HBM, queues.
  LaunchStats stats;
  TensorBytes outputs;  // with collect_outputs (and not timing only)
  std::map<std::string, std::uint64_t> tensor_addresses;  // where every tensor lived
};

// The handle launch() returns. `done` is notified (immediately, at the simulated time the
// last instruction or DMA transfer ended; for a failed launch once its transfers in flight
// have drained) and the result is complete from then on, whoever drives sc_start.
class Launch {
 public:
  std::uint64_t id() const { return result_.id; }
  bool finished() const { return finished_; }
  const sc_core::sc_event& done() const { return done_; }
  // Throws neuronsim::Error if the launch has not finished yet.
  const LaunchResult& result() const;
  // Moves the finished result out (outputs can be large); result() is empty afterwards.
  LaunchResult take_result();

 private:
  friend class detail::CoreState;
  LaunchRequest request_;
  LaunchResult result_;
  bool finished_ = false;
  sc_core::sc_event done_;
};

using LaunchHandle = std::shared_ptr<Launch>;

}  // namespace neuronsim
