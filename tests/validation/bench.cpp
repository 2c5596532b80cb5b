#include "bench.hpp"

#include <stdexcept>

#include <systemc>

#include "neuronsim/run.hpp"

namespace validation {

const ns::LaunchResult& Run::result() const {
  const ns::LaunchResult& r = launch->result();
  r.rethrow_if_failed();
  return r;
}

const ns::traces::InstructionRecord& Run::instr(ns::isa::Engine engine, std::uint32_t index) const {
  result();
  for (const auto& r : recorder.ends)
    if (r.engine == engine && r.index == index) return r;
  throw std::runtime_error("no record of " + std::string(ns::isa::engine_name(engine)) + "[" +
                           std::to_string(index) + "]");
}

double Run::ns_of(ns::isa::Engine engine, std::uint32_t index) const {
  const auto& r = instr(engine, index);
  return ns::traces::ps_to_ns(r.end_ps - r.start_ps);
}

double Run::cycles(ns::isa::Engine engine, std::uint32_t index) const {
  return ns_of(engine, index) * clock_ghz[static_cast<int>(engine)];
}

// A core with an HBM of its own, made on first use.
struct LoneCore {
  ns::config::TargetConfig config;
  std::unique_ptr<ns::Hbm> hbm;
  std::unique_ptr<ns::NeuronCore> core;

  ns::NeuronCore& get(const std::string& name) {
    if (!core) {
      hbm = std::make_unique<ns::Hbm>((name + "_hbm").c_str(), config);
      core = std::make_unique<ns::NeuronCore>((name + "_core").c_str(), config);
      core->hbm.bind(hbm->socket);
    }
    return *core;
  }
};

struct Bench::Target {
  LoneCore full_rate;                // the preset with the Tensor throttle off (config())
  LoneCore shipped;                  // the preset as shipped
  std::unique_ptr<ns::Device> chip;  // of full_rate's config
};

Bench::Bench() {
  ns::require_elaboration("validate_specs");
}

Bench::~Bench() = default;

Bench::Target& Bench::target(const std::string& name) {
  auto& t = targets_[name];
  if (!t) {
    t = std::make_unique<Target>();
    t->shipped.config = ns::config::load_target(name);
    t->full_rate.config = t->shipped.config;
    t->full_rate.config.cost.tensor_throttle = 0;
  }
  return *t;
}

const ns::config::TargetConfig& Bench::config(const std::string& target_name) {
  return target(target_name).full_rate.config;
}

RunPtr Bench::launch(ns::NeuronCore& core, const ns::config::TargetConfig& config,
                     const ns::isa::Kernel& kernel) {
  auto run = std::make_shared<Run>();
  for (int e = 0; e < ns::isa::kEngineCount; ++e)
    run->clock_ghz[e] = config.clock_ghz(static_cast<ns::isa::Engine>(e));
  ns::LaunchRequest request;
  request.kernel = std::make_shared<const ns::isa::Kernel>(kernel);
  request.source = kernel.name;
  // Timing does not depend on data (docs/simulation.md), so nothing is computed.
  request.timing_only = true;
  request.observers = {&run->recorder};
  run->launch = core.launch(std::move(request));
  return run;
}

RunPtr Bench::run(const std::string& target_name, const ns::isa::Kernel& kernel) {
  LoneCore& c = target(target_name).full_rate;
  return launch(c.get(target_name), c.config, kernel);
}

RunPtr Bench::run_as_shipped(const std::string& target_name, const ns::isa::Kernel& kernel) {
  LoneCore& c = target(target_name).shipped;
  return launch(c.get(target_name + "_shipped"), c.config, kernel);
}

std::vector<RunPtr> Bench::run_chip(const std::string& target_name, const ns::isa::Kernel& kernel) {
  Target& t = target(target_name);
  const ns::config::TargetConfig& config = t.full_rate.config;
  if (!t.chip) t.chip = std::make_unique<ns::Device>((target_name + "_chip").c_str(), config);
  std::vector<RunPtr> runs;
  for (std::size_t i = 0; i < t.chip->core_count(); ++i)
    runs.push_back(launch(t.chip->core(i), config, kernel));
  return runs;
}

void Bench::simulate() {
  sc_core::sc_start();
}

}  // namespace validation
