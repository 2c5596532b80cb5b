#include "neuronsim/run.hpp"

#include <cstdlib>

#include "isa/error.hpp"
#include "neff/neff.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"

namespace neuronsim {

void require_elaboration(const std::string& what) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  // SystemC's info messages ("simulation stopped by user") are not ours to print.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
    throw Error(what +
                ": this process has already run a SystemC simulation; SystemC "
                "elaborates once per process (launch more kernels on the same core)");
}

RunResult run_kernel(const isa::Kernel& kernel, const TargetConfig& config,
                     const TensorBytes& inputs, const RunOptions& options,
                     const std::string& source) {
  require_elaboration(source);
  LaunchRequest request;
  // The caller's kernel outlives the simulation below: no copy.
  request.kernel = std::shared_ptr<const isa::Kernel>(&kernel, [](const isa::Kernel*) {});
  request.source = source;
  request.inputs = inputs;
  request.timing_only = options.timing_only;
  request.fill_uninitialised = options.fill_uninitialised;
  request.observers = options.observers;
  if (!options.timing_only && options.generate_missing)
    for (const auto& t : kernel.tensors)
      if (t.role == isa::TensorRole::input && !inputs.count(t.name))
        request.inputs[t.name] = options.generate_missing(t);
  if (options.timing_only) request.inputs.clear();  // never read
  Hbm hbm("hbm", config);
  NeuronCore core("core", config);
  core.hbm.bind(hbm.socket);
  const LaunchHandle launch = core.launch(std::move(request));
  sc_core::sc_start();
  if (!launch->finished())
    throw Error(source + ": the simulation ended before the launch finished");
  launch->result().rethrow_if_failed();
  return launch->result();
}

RunResult run_neff(const std::string& neff_path, const TargetConfig& config,
                   const TensorBytes& inputs, const RunOptions& options) {
  const neff::Neff file = neff::read_file(neff_path);
  return run_kernel(file.kernel, config, inputs, options, neff_path);
}

}  // namespace neuronsim
