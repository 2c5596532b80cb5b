#pragma once
// Running one kernel on one simulated NeuronCore: validate it against the target, bind
// its inputs, simulate to completion, collect outputs and statistics. SystemC allows one
// simulation per process, so a process calls run_kernel / run_neff at most once.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engines/observer.hpp"
#include "isa/kernel.hpp"
#include "config/target_config.hpp"
#include "sim/stats.hpp"

namespace neuronsim::sim {

using TensorBytes = std::map<std::string, std::vector<std::uint8_t>>;  // by tensor name
// Makes the bytes of an input tensor that was not given.
using InputGenerator = std::function<std::vector<std::uint8_t>(const isa::HbmTensor&)>;

struct RunOptions {
  // Timing only: no memory is allocated and no instruction computes anything; inputs are
  // not needed and no outputs are returned. Timing is identical to a full run.
  bool timing_only = false;
  // Fill never-written memory with 0xFF bytes (NaN in every float format) instead of 0.
  bool fill_uninitialised = false;
  InputGenerator generate_missing;  // empty: a missing input is an error
  engines::Observers observers;     // see the events of the run (e.g. a trace writer)
};

struct EngineSummary {
  isa::Engine engine = isa::Engine::tensor;
  double clock_ghz = 0;
  std::uint64_t instructions = 0;
  std::uint64_t busy_cycles = 0;
  double busy_ns = 0, semaphore_wait_ns = 0, port_wait_ns = 0, dma_queue_wait_ns = 0,
         idle_ns = 0;  // add up to total_ns
};

struct RunResult {
  TensorBytes outputs;  // every output tensor; empty when timing only
  double total_ns = 0;
  std::uint64_t total_ps = 0;                // the same, exact (simulated time resolution)
  std::uint64_t neuroncore_cycle_count = 0;  // total time in Tensor engine cycles
  std::array<EngineSummary, isa::kEngineCount> engines;
  Stats stats;
};

// `source` names the kernel in error messages (a file name). Throws neuronsim::Error for
// an invalid kernel, a missing/unknown/wrong-sized input, a deadlock or a failed run.
RunResult run_kernel(const isa::Kernel& kernel, const TargetConfig& config,
                     const TensorBytes& inputs, const RunOptions& options,
                     const std::string& source = "kernel");
RunResult run_neff(const std::string& neff_path, const TargetConfig& config,
                   const TensorBytes& inputs, const RunOptions& options);

}  // namespace neuronsim::sim
