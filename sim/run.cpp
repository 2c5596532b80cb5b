#include "sim/run.hpp"

#include "engines/sim_time.hpp"
#include "isa/error.hpp"
#include "isa/validate.hpp"
#include "neff/neff.hpp"
#include "sim/neuron_core.hpp"

namespace neuronsim::sim {

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names)
    s += (s.empty() ? "'" : ", '") + n + "'";
  return s;
}

// Every input tensor's bytes, from `inputs` or the generator; checks names and sizes.
void bind_inputs(const isa::Kernel& k, const TensorBytes& inputs, const RunOptions& options,
                 const std::string& source, memory::MemoryImage& memory) {
  std::vector<std::string> unknown, missing;
  for (const auto& [name, bytes] : inputs) {
    bool found = false;
    for (const auto& t : k.tensors)
      found = found || (t.name == name && t.role == isa::TensorRole::input);
    if (!found) unknown.push_back(name);
  }
  if (!unknown.empty()) throw Error(source + ": no input tensor named " + join(unknown));
  for (std::uint32_t i = 0; i < k.tensors.size(); ++i) {
    const auto& t = k.tensors[i];
    if (t.role != isa::TensorRole::input) continue;
    auto it = inputs.find(t.name);
    if (it != inputs.end()) {
      if (it->second.size() != t.bytes())
        throw Error(source + ": input '" + t.name + "' has " + std::to_string(it->second.size()) +
                    " bytes, the tensor needs " + std::to_string(t.bytes()));
      memory.bind_tensor(i, it->second);
    } else if (options.generate_missing) {
      memory.bind_tensor(i, options.generate_missing(t));
    } else {
      missing.push_back(t.name);
    }
  }
  if (!missing.empty()) throw Error(source + ": inputs not given: " + join(missing));
}

EngineSummary summarise(const engines::Engine& e, sc_core::sc_time total) {
  const auto& c = e.counters();
  EngineSummary s;
  s.engine = e.engine();
  s.clock_ghz = e.clock_ghz();
  s.instructions = c.instructions;
  s.busy_cycles = c.busy_cycles;
  s.busy_ns = engines::to_ns(c.busy);
  s.semaphore_wait_ns = engines::to_ns(c.semaphore_wait);
  s.port_wait_ns = engines::to_ns(c.port_wait);
  s.dma_queue_wait_ns = engines::to_ns(c.dma_queue_wait);
  s.idle_ns = engines::to_ns(total - c.busy - c.semaphore_wait - c.port_wait - c.dma_queue_wait);
  return s;
}

}  // namespace

RunResult run_kernel(const isa::Kernel& kernel, const TargetConfig& config,
                     const TensorBytes& inputs, const RunOptions& options,
                     const std::string& source) {
  isa::validate(kernel, config.limits, source);
  claim_simulation();
  CoreOptions core_options;
  core_options.timing_only = options.timing_only;
  core_options.fill =
      options.fill_uninitialised ? memory::UninitFill::poison : memory::UninitFill::zero;
  core_options.observers = options.observers;
  core_options.source = source;
  NeuronCore core("core", kernel, config, core_options);
  if (core.memory()) bind_inputs(kernel, inputs, options, source, *core.memory());
  core.run();

  RunResult result;
  result.total_ns = engines::to_ns(core.total_time());
  result.total_ps = engines::to_ps(core.total_time());
  result.neuroncore_cycle_count = engines::to_cycles(core.total_time(), config.tensor_ghz);
  for (int i = 0; i < isa::kEngineCount; ++i)
    result.engines[i] = summarise(core.engine(static_cast<isa::Engine>(i)), core.total_time());
  result.stats = collect_stats(core);
  if (core.memory())
    for (std::uint32_t i = 0; i < kernel.tensors.size(); ++i)
      if (kernel.tensors[i].role == isa::TensorRole::output)
        result.outputs[kernel.tensors[i].name] = core.memory()->tensor_bytes(i);
  return result;
}

RunResult run_neff(const std::string& neff_path, const TargetConfig& config,
                   const TensorBytes& inputs, const RunOptions& options) {
  const neff::Neff file = neff::read_file(neff_path);
  return run_kernel(file.kernel, config, inputs, options, neff_path);
}

}  // namespace neuronsim::sim
