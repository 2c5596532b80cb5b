#pragma once
// The kernels a core has launched, each checked (isa::validate) and planned
// (engines::plan_kernel) once, as the Neuron runtime loads a model once and executes it
// many times. A kernel is known by identity: LaunchRequest::kernel points to a const
// Kernel, which must not change while anything holds it (include/neuronsim/launch.hpp).
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "config/target_config.hpp"
#include "engines/instruction_plan.hpp"
#include "isa/kernel.hpp"
#include "memory/port_map.hpp"

namespace neuronsim::detail {

class PreparedKernels {
 public:
  // Keeps at most `max_kernels` kernels and, beyond the most recent one, at most
  // `max_instructions` instructions in all: the least recently launched go first.
  PreparedKernels(std::size_t max_kernels, std::uint64_t max_instructions)
      : max_kernels_(max_kernels), max_instructions_(max_instructions) {}

  // Validates `kernel` against the target unless this core has already (false then);
  // throws neuronsim::Error naming `source` like isa::validate.
  bool check(const std::shared_ptr<const isa::Kernel>& kernel, const config::TargetConfig& config,
             const std::string& source);
  // The plan of a kernel `check` accepted, computed on first use.
  std::shared_ptr<const engines::KernelPlan> plan(const std::shared_ptr<const isa::Kernel>& kernel,
                                                  const config::TargetConfig& config,
                                                  memory::PortMap& ports);

 private:
  struct Entry {
    std::shared_ptr<const isa::Kernel> kernel;
    std::shared_ptr<const engines::KernelPlan> plan;  // null until first planned
    std::uint64_t instructions = 0;
  };
  // The entry of `kernel`, moved to the front; null if absent.
  Entry* find(const isa::Kernel* kernel);
  Entry& insert(const std::shared_ptr<const isa::Kernel>& kernel);

  std::size_t max_kernels_;
  std::uint64_t max_instructions_;
  std::list<Entry> entries_;  // most recently used first
};

}  // namespace neuronsim::detail
