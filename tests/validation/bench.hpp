#pragma once
// The one simulation every validation kernel runs in. Per target it holds a lone core
// with an HBM of its own (what one core of the chip gets, docs/simulation.md) and a whole
// chip (neuronsim::Device). Measurements queue their launches before the simulation
// starts; after it has run they read the results. Launches on one core run one after
// another, each timed from its own start, so they do not disturb each other.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/target_config.hpp"
#include "engines/observer.hpp"
#include "isa/kernel.hpp"
#include "neuronsim/device.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"

namespace validation {

namespace ns = neuronsim;

// Every event of one launch.
struct Recorder : ns::engines::Observer {
  std::vector<ns::traces::InstructionRecord> ends;
  std::vector<ns::traces::DmaRecord> dma_ends;
  std::vector<ns::traces::SemaphoreRecord> semaphores;
  void on_instruction_end(const ns::traces::InstructionRecord& r) override { ends.push_back(r); }
  void on_dma_end(const ns::traces::DmaRecord& r) override { dma_ends.push_back(r); }
  void on_semaphore_update(const ns::traces::SemaphoreRecord& r) override {
    semaphores.push_back(r);
  }
};

// One launch and what it recorded. result() throws the launch's error if it failed.
struct Run {
  ns::LaunchHandle launch;
  Recorder recorder;
  double clock_ghz[ns::isa::kEngineCount] = {};

  const ns::LaunchResult& result() const;
  // The record of `engine`'s instruction `index`; throws if there is none.
  const ns::traces::InstructionRecord& instr(ns::isa::Engine engine, std::uint32_t index) const;
  // Its busy time (start to end) in cycles of its engine's clock.
  double cycles(ns::isa::Engine engine, std::uint32_t index) const;
  double ns_of(ns::isa::Engine engine, std::uint32_t index) const;
};
using RunPtr = std::shared_ptr<Run>;

class Bench {
 public:
  Bench();
  ~Bench();

  // The shipped preset of a target (config/targets/*.json) with the Tensor throttle off
  // (tensor.throttle): the published instruction costs and peaks are the PE array's
  // steady full rate, which a short measuring burst from cold would not reach.
  const ns::config::TargetConfig& config(const std::string& target);
  // Queues a timing-only launch of `kernel` on the target's lone core (that config).
  RunPtr run(const std::string& target, const ns::isa::Kernel& kernel);
  // The same on a lone core of the shipped preset unmodified, throttle included.
  RunPtr run_as_shipped(const std::string& target, const ns::isa::Kernel& kernel);
  // Queues it on every core of the target's chip at once.
  std::vector<RunPtr> run_chip(const std::string& target, const ns::isa::Kernel& kernel);
  // Runs the simulation until every launch is done.
  void simulate();

 private:
  struct Target;
  Target& target(const std::string& name);
  RunPtr launch(ns::NeuronCore& core, const ns::config::TargetConfig& config,
                const ns::isa::Kernel& kernel);
  std::map<std::string, std::unique_ptr<Target>> targets_;
};

}  // namespace validation
