#pragma once
// One launch while it runs on a core (private to sim/): where its tensors are, its ports,
// semaphores and engines, and how it ended. It is the engines' LaunchMonitor: it notices
// when the launch is done (every engine finished, no transfer outstanding) or stuck (no
// engine can move and no transfer will signal), and records the first failure.
#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include <systemc>

#include "engines/dma_subsystem.hpp"
#include "engines/engine.hpp"
#include "engines/instruction_plan.hpp"
#include "engines/launch_context.hpp"
#include "engines/semaphores.hpp"
#include "engines/write_watch.hpp"
#include "neuronsim/launch.hpp"

namespace neuronsim::detail {

// Tensors in device HBM for one launch.
struct TensorPlacement {
  std::vector<std::uint64_t> addresses;            // per Kernel::tensors entry
  std::vector<std::uint8_t*> pointers;             // DMI pointer or staging copy (not timing only)
  std::vector<std::vector<std::uint8_t>> staging;  // per tensor; empty where DMI serves
  std::vector<std::uint8_t*> read_into;            // pointers where DMI serves, else null
  std::vector<bool> placed;                        // put in the core's window (not by the caller)
};

class LaunchState : public engines::LaunchMonitor {
 public:
  enum class End { running, complete, deadlock, failed };

  LaunchState(LaunchHandle launch, sc_core::sc_event& ended)
      : launch(std::move(launch)), ended_event(ended) {}

  void progress() override;
  void fail(std::exception_ptr error) override;
  bool stuck() const;

  LaunchHandle launch;
  sc_core::sc_event& ended_event;
  TensorPlacement tensors;
  std::shared_ptr<const engines::KernelPlan> plan;
  std::unique_ptr<engines::Semaphores> semaphores;
  engines::WriteWatch written;
  std::unique_ptr<engines::LaunchContext> context;
  std::array<std::unique_ptr<engines::Engine>, isa::kEngineCount> engines;
  End end = End::running;
  std::exception_ptr error;
  sc_core::sc_time ended_at;  // absolute
};

}  // namespace neuronsim::detail
