#include "neuronsim/device.hpp"

#include <string>

#include "base/error.hpp"

namespace neuronsim {

Device::Device(sc_core::sc_module_name name, const config::TargetConfig& config, unsigned cores)
    : sc_module(name), hbm("hbm", config) {
  const unsigned n = cores == 0 ? config.cores_per_chip : cores;
  if (n == 0 || n > config.cores_per_chip)
    throw Error("device: " + config.name + " has " + std::to_string(config.cores_per_chip) +
                " NeuronCores per chip; asked for " + std::to_string(n));
  // Equal windows of the chip's HBM, one per core of the chip (so core i's window does
  // not depend on how many cores are instantiated).
  const std::uint64_t window = config.hbm.capacity_bytes / config.cores_per_chip;
  for (unsigned i = 0; i < n; ++i) {
    CoreOptions options;
    options.hbm_window_base = window * i;
    options.hbm_window_bytes = window;
    cores_.push_back(
        std::make_unique<NeuronCore>(("core" + std::to_string(i)).c_str(), config, options));
    cores_.back()->hbm.bind(hbm.socket);
  }
}

Device::~Device() = default;

}  // namespace neuronsim
