#pragma once
// The one-call driver over the component API: builds an HBM model and a NeuronCore, binds
// them, launches one kernel and runs the simulation until it is done (sc_start). SystemC
// elaborates once per process, so a process calls run_kernel / run_neff at most once; to
// run more kernels, build the modules yourself (NeuronCore::launch, neuronsim::Device).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "neuronsim/config.hpp"
#include "neuronsim/launch.hpp"

namespace neuronsim {

// Makes the bytes of an input tensor that was not given.
using InputGenerator = std::function<std::vector<std::uint8_t>(const isa::HbmTensor&)>;

struct RunOptions {
  // Timing only: no memory is allocated and no instruction computes anything; inputs are
  // not needed and no outputs are returned. Timing is identical to a full run.
  bool timing_only = false;
  // Poison never-written memory instead of zeroing it: floats read NaN, integers the
  // target's sbuf.uninitialised_int_fill (docs/simulation.md).
  bool fill_uninitialised = false;
  InputGenerator generate_missing;   // empty: a missing input is an error
  std::vector<Observer*> observers;  // see the events of the run (e.g. a trace writer)
  // Run a kernel built for another target on `config` (LaunchRequest::other_target);
  // without it such a kernel is refused.
  bool other_target = false;
};

using RunResult = LaunchResult;

// `source` names the kernel in error messages (a file name). Throws neuronsim::Error for
// an invalid kernel, a missing/unknown/wrong-sized input, a deadlock or a failed run, or
// when this process has already started a simulation.
RunResult run_kernel(const isa::Kernel& kernel, const TargetConfig& config,
                     const TensorBytes& inputs, const RunOptions& options,
                     const std::string& source = "kernel");
RunResult run_neff(const std::string& neff_path, const TargetConfig& config,
                   const TensorBytes& inputs, const RunOptions& options);

// Throws neuronsim::Error unless SystemC modules can still be built in this process
// (elaboration not finished), and keeps SystemC's banner and info messages out of the
// program's output (a driver's choice: the core itself leaves reporting alone).
void require_elaboration(const std::string& what);

}  // namespace neuronsim
