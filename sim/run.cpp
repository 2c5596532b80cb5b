#include "neuronsim/run.hpp"

#include <cstdlib>

#include "base/error.hpp"
#include "neff/neff.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"
#include "sim/input_check.hpp"

namespace neuronsim {

namespace {
constexpr std::uint64_t kPage = 4096;  // inputs are placed a page apart
}  // namespace

void require_elaboration(const std::string& what) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  // SystemC's info messages ("simulation stopped by user") are not ours to print.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
    throw Error(what +
                ": this process has already run a SystemC simulation; SystemC "
                "elaborates once per process (launch more kernels on the same core)");
}

RunResult run_kernel(const isa::Kernel& kernel, const config::TargetConfig& config,
                     const TensorBytes& inputs, const RunOptions& options,
                     const std::string& source) {
  require_elaboration(source);
  LaunchRequest request;
  // The caller's kernel outlives the simulation below: no copy.
  request.kernel = std::shared_ptr<const isa::Kernel>(&kernel, [](const isa::Kernel*) {});
  request.source = source;
  request.timing_only = options.timing_only;
  request.fill_uninitialised = options.fill_uninitialised;
  request.observers = options.observers;
  request.other_target = options.other_target;
  Hbm hbm("hbm", config);
  // Inputs go straight into HBM, at the bottom, each on a page of its own; the core places
  // everything else in its window above them. (Through LaunchRequest::inputs they would be
  // copied once more.)
  std::uint64_t window_base = 0;
  sim::check_given_inputs(kernel, inputs, source);  // the core's check of a request
  if (!options.timing_only)
    for (const auto& t : kernel.tensors) {
      if (t.role != isa::TensorRole::input) continue;
      auto given = inputs.find(t.name);
      std::vector<std::uint8_t> generated;
      if (given == inputs.end() && options.generate_missing)
        generated = options.generate_missing(t);
      const std::vector<std::uint8_t>* bytes = given != inputs.end()      ? &given->second
                                               : options.generate_missing ? &generated
                                                                          : nullptr;
      if (!bytes) continue;  // the core names every input not given
      if (bytes->size() != t.bytes())
        throw Error(source + ": input '" + t.name + "' has " + std::to_string(bytes->size()) +
                    " bytes, the tensor needs " + std::to_string(t.bytes()));
      hbm.write(window_base, bytes->data(), bytes->size());
      request.tensor_addresses[t.name] = window_base;
      window_base = (window_base + t.bytes() + kPage - 1) / kPage * kPage;
    }
  CoreOptions core_options;
  core_options.hbm_window_base = window_base;
  NeuronCore core("core", config, core_options);
  core.hbm.bind(hbm.socket);
  const LaunchHandle launch = core.launch(std::move(request));
  sc_core::sc_start();
  if (!launch->finished())
    throw Error(source + ": the simulation ended before the launch finished");
  launch->result().rethrow_if_failed();
  return launch->take_result();
}

RunResult run_neff(const std::string& neff_path, const config::TargetConfig& config,
                   const TensorBytes& inputs, const RunOptions& options) {
  const neff::Neff file = neff::read_file(neff_path);
  return run_kernel(file.kernel, config, inputs, options, neff_path);
}

}  // namespace neuronsim
