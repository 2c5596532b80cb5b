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

struct Bench::Target {
  ns::config::TargetConfig config;
  std::unique_ptr<ns::Hbm> hbm;
  std::unique_ptr<ns::NeuronCore> core;
  std::unique_ptr<ns::Device> chip;
  ns::config::TargetConfig shipped;
  std::unique_ptr<ns::Hbm> shipped_hbm;
  std::unique_ptr<ns::NeuronCore> shipped_core;
};

Bench::Bench() {
  ns::require_elaboration("validate_specs");
}

Bench::~Bench() = default;

Bench::Target& Bench::target(const std::string& name) {
  auto& t = targets_[name];
  if (!t) {
    t = std::make_unique<Target>();
    t->shipped = ns::config::load_target(name);
    t->config = t->shipped;
    t->config.cost.tensor_throttle = 0;
  }
  return *t;
}

const ns::config::TargetConfig& Bench::config(const std::string& target_name) {
  return target(target_name).config;
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
  Target& t = target(target_name);
  if (!t.core) {
    t.hbm = std::make_unique<ns::Hbm>((target_name + "_hbm").c_str(), t.config);
    t.core = std::make_unique<ns::NeuronCore>((target_name + "_core").c_str(), t.config);
    t.core->hbm.bind(t.hbm->socket);
  }
  return launch(*t.core, t.config, kernel);
}

RunPtr Bench::run_as_shipped(const std::string& target_name, const ns::isa::Kernel& kernel) {
  Target& t = target(target_name);
  if (!t.shipped_core) {
    t.shipped_hbm = std::make_unique<ns::Hbm>((target_name + "_shipped_hbm").c_str(), t.shipped);
    t.shipped_core =
        std::make_unique<ns::NeuronCore>((target_name + "_shipped_core").c_str(), t.shipped);
    t.shipped_core->hbm.bind(t.shipped_hbm->socket);
  }
  return launch(*t.shipped_core, t.shipped, kernel);
}

std::vector<RunPtr> Bench::run_chip(const std::string& target_name, const ns::isa::Kernel& kernel) {
  Target& t = target(target_name);
  if (!t.chip) t.chip = std::make_unique<ns::Device>((target_name + "_chip").c_str(), t.config);
  std::vector<RunPtr> runs;
  for (std::size_t i = 0; i < t.chip->core_count(); ++i)
    runs.push_back(launch(t.chip->core(i), t.config, kernel));
  return runs;
}

void Bench::simulate() {
  sc_core::sc_start();
}

}  // namespace validation
