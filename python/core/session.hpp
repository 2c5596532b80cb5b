#pragma once
// The simulation behind the Python module: live NeuronCores, one per target config, that
// every neuronsim.run launches onto, in this process, with no fork (docs/python.md).
//
// SystemC elaborates once per simulation context: modules are built before its first
// sc_start and never after. A run on a config that already has a core launches onto it
// (the fast path: no module is built, nothing is torn down). A run on a new config before
// the first sc_start adds a core; after it, the session retires the context (its modules
// first, then the context itself) and builds a fresh one holding a core for the new config
// and for the most recently used others. The first context of the process is never
// deleted: SystemC's own static events refer to it until the process exits.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "neuronsim/config.hpp"
#include "neuronsim/launch.hpp"
#include "sim/fresh_context.hpp"

namespace neuronsim {
class Hbm;
class NeuronCore;
}  // namespace neuronsim

namespace neuronsim::python {

struct SessionInfo {
  std::uint64_t contexts = 0;      // simulation contexts made so far (1: never replaced)
  std::uint64_t launches = 0;      // launches run
  std::vector<std::string> cores;  // target names of the live cores, in build order
};

class Session {
 public:
  // Configs with a core in a fresh context besides the one asked for (most recent first).
  static constexpr std::size_t kKeptConfigs = 4;

  static Session& get();

  // Launches `request` on the live core for `config` (`key` identifies the config: equal
  // keys, equal configs), runs the simulation until the launch is done and returns its
  // result, failed or not. Throws neuronsim::Error when launch() refuses the request.
  LaunchResult run(const config::TargetConfig& config, const std::string& key,
                   LaunchRequest request);
  // One launch per core of a platform of `requests.size()` cores sharing one HBM (the
  // cores of a device, as `neuronsim run --cores`), all started at once; returns their
  // results in core order. The tensors named in `shared` are the cores' common tensors:
  // each is placed once, in a region of the HBM below every core's own window, filled
  // with its bytes (inputs) or zeros (outputs) and, after the run, read back into
  // `shared` (outputs only). Every other tensor is the core's own.
  struct SharedTensor {
    std::vector<std::uint8_t> bytes;  // inputs: their bytes; outputs: the result
    std::uint64_t size = 0;
    bool output = false;
  };
  std::vector<LaunchResult> run_cores(const config::TargetConfig& config, const std::string& key,
                                      std::vector<LaunchRequest> requests,
                                      std::map<std::string, SharedTensor>& shared,
                                      bool timing_only);
  // Runs `fn` alone in a fresh simulation context, for a caller that builds its own modules
  // (the what-if analysis, whatif/bench.hpp): the live cores are retired first, and the
  // next run builds its cores in a fresh context again.
  void run_alone(const std::function<void()>& fn);
  // Destroys every module and restores the process's first context: at interpreter exit.
  void shutdown();
  SessionInfo info() const;

 private:
  struct Platform;
  Session();
  ~Session();
  Platform* find(const std::string& key);
  // `key` ending in "|cores=N" builds N cores on one HBM with a shared region (run_cores).
  Platform& add(const config::TargetConfig& config, const std::string& key);
  void remember(const config::TargetConfig& config, const std::string& key);
  // A core for a config that has none: added while elaborating, else in a fresh context.
  Platform& build_core(const config::TargetConfig& config, const std::string& key);
  void replace_context();
  void fresh_context();  // no modules: the current one's go first
  // sc_start until the launches are done; a throw marks the context broken.
  void simulate();

  std::vector<std::unique_ptr<Platform>> platforms_;                 // in the current context
  std::deque<std::pair<std::string, config::TargetConfig>> recent_;  // by key, newest first
  std::unique_ptr<sim::FreshContext> context_;  // null: the process's first context
  bool broken_ = false;  // sc_start threw: the context's processes are in no known state
  std::uint64_t contexts_ = 1, launches_ = 0;
};

}  // namespace neuronsim::python
