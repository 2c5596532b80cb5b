#pragma once
// The simulation a what-if analysis runs in: one Hbm and one NeuronCore per target config,
// every core on its own Hbm so that no config's traffic slows another's, all built at once
// (SystemC elaborates once). Launches are queued on their config's core and the whole
// batch runs in one sc_start; a core runs its launches back to back, each exactly as a lone
// launch would run (its device time counts from its own start). Later batches reuse the
// cores: the baseline's trace decides which kernels the second batch runs.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/target_config.hpp"
#include "engines/observer.hpp"
#include "isa/kernel.hpp"
#include "neuronsim/launch.hpp"
#include "traces/engine_time.hpp"

namespace neuronsim {
class Hbm;
class NeuronCore;
}  // namespace neuronsim

namespace neuronsim::whatif {

struct Job {
  std::size_t config = 0;  // index into the bench's configs
  std::shared_ptr<const isa::Kernel> kernel;
  std::string source;                     // names the kernel in messages
  engines::Observer* observer = nullptr;  // or null
};

// A launch's outcome: its device time, or why it failed (a relief that breaks the kernel's
// synchronisation, e.g. a wait whose semaphore is later set back, may deadlock it).
struct JobResult {
  std::uint64_t total_ps = 0;
  std::array<traces::EngineTime, isa::kEngineCount> engines{};  // by isa::Engine
  std::string error;                                            // empty: ran to completion
};

class Bench {
 public:
  // Throws neuronsim::Error unless SystemC modules can still be built in this process.
  explicit Bench(const std::vector<config::TargetConfig>& configs);
  ~Bench();
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  // Runs every job timing only, all in one sc_start; results in job order.
  std::vector<JobResult> run(const std::vector<Job>& jobs);

 private:
  std::vector<std::unique_ptr<Hbm>> hbms_;
  std::vector<std::unique_ptr<NeuronCore>> cores_;
};

}  // namespace neuronsim::whatif
