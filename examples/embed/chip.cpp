// `embed chip N KERNEL.neff`: N NeuronCores of one chip (neuronsim::Device, one shared HBM)
// each launch the same kernel at time 0 with the same generated inputs. The Hbm shares its
// bandwidth between the cores: each gets at most its share of the chip's (the target's
// hbm.core_share) and all together at most hbm.chip_bandwidth_gbps.
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include <systemc>

#include "embed.hpp"

namespace embed {

int run_chip(unsigned cores, const std::string& neff_path) {
  const auto kernel = neuronsim::load_neff(neff_path);
  const neuronsim::TargetConfig config = neuronsim::load_target(kernel->target);
  neuronsim::Device device("chip", config, cores);

  neuronsim::TensorBytes inputs;
  for (const auto& t : kernel->tensors)
    if (t.role == neuronsim::isa::TensorRole::input) inputs[t.name] = fill(t);
  std::vector<neuronsim::LaunchHandle> launches;
  for (std::size_t i = 0; i < device.core_count(); ++i) {
    neuronsim::LaunchRequest request;
    request.kernel = kernel;
    request.source = neff_path;
    request.inputs = inputs;
    launches.push_back(device.core(i).launch(std::move(request)));
  }

  sc_core::sc_start();  // returns when every core is idle

  std::cout << std::fixed << std::setprecision(3);
  int failed = 0;
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (!launches[i]->finished()) {
      std::cout << "core " << i << ": did not finish\n";
      ++failed;
      continue;
    }
    const neuronsim::LaunchResult& r = launches[i]->result();
    if (!r.ok()) {
      std::cout << "core " << i << ": failed: " << r.error << "\n";
      ++failed;
      continue;
    }
    const auto port = static_cast<unsigned>(i);  // core i is the HBM's port i
    bytes += device.hbm.bytes_read(port) + device.hbm.bytes_written(port);
    std::cout << "core " << i << ": " << r.total_ns << " ns (" << r.neuroncore_cycle_count
              << " neuroncore cycles at the profiler's counter clock), HBM "
              << device.hbm.bytes_read(port) << " bytes read, " << device.hbm.bytes_written(port)
              << " written";
    for (const auto& t : kernel->tensors)
      if (r.outputs.count(t.name))
        std::cout << "; output " << t.name << " " << summarise(t, r.outputs.at(t.name)).text();
    std::cout << "\n";
  }
  const double ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
  std::cout << "chip: " << config.name << ", " << launches.size() << " cores, kernel '"
            << kernel->name << "': simulated time " << ns << " ns, HBM " << bytes << " bytes, "
            << (ns > 0 ? bytes / ns : 0.0) << " GB/s\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace embed
