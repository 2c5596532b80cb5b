#pragma once
// What every engine of one launch shares: the kernel, the cost parameters, memory (absent
// when timing only), the kernel's plan (with its ports), semaphores, the core's DMA subsystem,
// observers, the launch's monitor and the time it started. Owned by the core for the time of the
// launch.
#include <exception>
#include <string>

#include <systemc>

#include "engines/instruction_plan.hpp"
#include "engines/observer.hpp"
#include "engines/semaphores.hpp"
#include "engines/write_watch.hpp"
#include "isa/kernel.hpp"
#include "memory/memory_image.hpp"
#include "params/cost_params.hpp"

namespace neuronsim::engines {

class DmaSubsystem;

// The core's side of a launch. The engines and the DMA subsystem call it from their
// SystemC processes; it must not wait.
class LaunchMonitor {
 public:
  virtual ~LaunchMonitor() = default;
  // An engine is about to wait on a semaphore or has finished its stream, or a transfer
  // completed: the launch may now be done, or stuck.
  virtual void progress() = 0;
  // An error inside a process (an observer's, a data error, a failed HBM access): the
  // first one ends the launch. Must not be given sc_unwind_exception.
  virtual void fail(std::exception_ptr error) = 0;
};

struct LaunchContext {
  const isa::Kernel& kernel;
  const params::CostParams& cost;
  const KernelPlan& plan;       // the kernel's plans on this core (plan_kernel)
  memory::MemoryImage* memory;  // null: timing only, isa::execute is skipped
  Semaphores& semaphores;
  DmaSubsystem& dma;
  const Observers& observers;
  LaunchMonitor& monitor;
  WriteWatch& written;      // tells the Tensor engine when its loaded stationary changes
  sc_core::sc_time origin;  // the launch's start: record times are relative to it
  std::string source;       // names the kernel (its file) in messages

  sc_core::sc_time since_start() const { return sc_core::sc_time_stamp() - origin; }
};

}  // namespace neuronsim::engines
