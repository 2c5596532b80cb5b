#pragma once
// One NeuronCore as a SystemC module, built from a kernel and a target config: memories
// (unless timing only), ports, semaphores, the DMA subsystem and the five engines.
// SystemC allows one elaboration and one simulation per process, so a program builds at
// most one NeuronCore; building a second is an error (the CLI runs one kernel per process,
// tests run one scenario per process).
#include <array>
#include <memory>
#include <string>

#include <systemc>

#include "engines/compute_engines.hpp"
#include "engines/dma_subsystem.hpp"
#include "engines/engine.hpp"
#include "engines/failure.hpp"
#include "engines/observer.hpp"
#include "engines/semaphores.hpp"
#include "engines/tensor_engine.hpp"
#include "engines/write_watch.hpp"
#include "isa/kernel.hpp"
#include "memory/memory_image.hpp"
#include "memory/port_map.hpp"
#include "config/target_config.hpp"

namespace neuronsim::sim {

// Call before building the NeuronCore (before any SystemC object exists): throws
// neuronsim::Error if this process already has one, and keeps SystemC's banner out of
// the program's output.
void claim_simulation();

struct CoreOptions {
  bool timing_only = false;  // no data: skip memory and isa::execute; timing is unchanged
  memory::UninitFill fill = memory::UninitFill::zero;
  engines::Observers observers;
  std::string source;  // names the kernel (its file) in error messages
};

class NeuronCore : public sc_core::sc_module {
 public:
  // `kernel` must be valid for the target (isa::validate) and outlive the core.
  NeuronCore(sc_core::sc_module_name name, const isa::Kernel& kernel, const TargetConfig& config,
             const CoreOptions& options);
  ~NeuronCore() override;

  // The memories; null when timing only. Bind inputs here before run().
  memory::MemoryImage* memory() { return memory_.get(); }

  // Runs the kernel to completion. Throws neuronsim::Error on a deadlock (naming every
  // blocked engine) or when an engine or DMA transfer failed.
  void run();

  sc_core::sc_time total_time() const { return total_; }
  const engines::Engine& engine(isa::Engine e) const { return *engines_[static_cast<int>(e)]; }
  const engines::DmaSubsystem& dma() const { return *dma_; }
  const TargetConfig& config() const { return config_; }
  const isa::Kernel& kernel() const { return kernel_; }

 private:
  std::string deadlock_report() const;

  const isa::Kernel& kernel_;
  TargetConfig config_;
  engines::Observers observers_;
  std::string source_;
  engines::FailureSink failure_;
  engines::WriteWatch written_;
  std::unique_ptr<memory::MemoryImage> memory_;
  std::unique_ptr<memory::PortMap> ports_;
  std::unique_ptr<engines::Semaphores> semaphores_;
  std::unique_ptr<engines::DmaSubsystem> dma_;
  std::unique_ptr<engines::CoreContext> context_;
  std::array<std::unique_ptr<engines::Engine>, isa::kEngineCount> engines_;
  sc_core::sc_time total_;
};

}  // namespace neuronsim::sim
