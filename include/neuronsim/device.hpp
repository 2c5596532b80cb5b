#pragma once
// neuronsim::Device: a chip's NeuronCores around one shared HBM (trn1: 2 cores, trn2 and
// trn3: 8; chip.neuron_cores of the target config). Core i's window of the HBM address
// space is the i-th equal slice of it; every core's `hbm` socket is bound to `hbm`.
#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "neuronsim/config.hpp"
#include "neuronsim/hbm.hpp"
#include "neuronsim/neuron_core.hpp"

namespace neuronsim {

class Device : public sc_core::sc_module {
 public:
  Hbm hbm;

  // cores = 0: the target's chip.neuron_cores. Throws neuronsim::Error for more cores
  // than the chip has.
  Device(sc_core::sc_module_name name, const TargetConfig& config, unsigned cores = 0);
  ~Device() override;

  std::size_t core_count() const { return cores_.size(); }
  NeuronCore& core(std::size_t i) { return *cores_.at(i); }
  const char* kind() const override { return "neuronsim::Device"; }

 private:
  std::vector<std::unique_ptr<NeuronCore>> cores_;
};

}  // namespace neuronsim
