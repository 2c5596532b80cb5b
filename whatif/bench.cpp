#include "whatif/bench.hpp"

#include <utility>

#include "base/error.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"
#include "neuronsim/run.hpp"

namespace neuronsim::whatif {

Bench::Bench(const std::vector<config::TargetConfig>& configs) {
  require_elaboration("whatif");
  for (std::size_t i = 0; i < configs.size(); ++i) {
    // Module names are unique in a context: one suffix per config.
    const std::string suffix = "_" + std::to_string(i);
    hbms_.push_back(std::make_unique<Hbm>(("whatif_hbm" + suffix).c_str(), configs[i]));
    cores_.push_back(std::make_unique<NeuronCore>(("whatif_core" + suffix).c_str(), configs[i]));
    cores_.back()->hbm.bind(hbms_.back()->socket);
  }
}

Bench::~Bench() {
  cores_.clear();  // the cores first: they hold sockets bound to the Hbms
  hbms_.clear();
}

std::vector<JobResult> Bench::run(const std::vector<Job>& jobs) {
  std::vector<LaunchHandle> launches;
  for (const Job& job : jobs) {
    LaunchRequest r;
    r.kernel = job.kernel;
    r.other_target = true;  // the analysis chose the target
    r.source = job.source;
    r.timing_only = true;
    r.collect_outputs = false;
    if (job.observer) r.observers.push_back(job.observer);
    launches.push_back(cores_.at(job.config)->launch(std::move(r)));
  }
  sc_core::sc_start();
  std::vector<JobResult> results;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (!launches[i]->finished())
      throw Error(jobs[i].source + ": the simulation ended before the launch finished");
    LaunchResult r = launches[i]->take_result();
    JobResult j{r.total_ps, {}, r.error};
    for (int e = 0; e < isa::kEngineCount; ++e)
      j.engines[e] = r.stats.engines[e].time;
    results.push_back(std::move(j));
    launches[i].reset();  // its event belongs to this context
  }
  return results;
}

}  // namespace neuronsim::whatif
