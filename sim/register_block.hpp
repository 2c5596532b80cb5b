#pragma once
// The register block of a NeuronCore (neuronsim/tlm.hpp has the map; docs/embedding.md
// says how a host uses it): a host writes a kernel descriptor into HBM, puts its address
// in kDescriptor, rings kDoorbell and sleeps on irq; the core reads the descriptor and its
// NEFF (transport_dbg), launches it and, when it is done, sets kIntStatus and raises irq
// while kIntStatus & kIntEnable is not zero.
#include <cstdint>

#include <systemc>
#include <tlm>

#include "neuronsim/launch.hpp"

namespace neuronsim::detail {

class CoreState;

class RegisterBlock {
 public:
  explicit RegisterBlock(CoreState& core) : core_(core) {}

  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // Every finished launch: the cycle counter; a doorbell launch also raises kIntDone.
  void launch_finished(const LaunchResult& result, bool from_doorbell);

 private:
  bool access(tlm::tlm_generic_payload& trans, bool side_effects);
  std::uint64_t read(std::uint64_t offset) const;
  bool write(std::uint64_t offset, std::uint64_t value, std::uint64_t mask, bool side_effects);
  void ring();
  void raise(std::uint64_t bits, std::uint64_t error_code);
  void update_irq();

  CoreState& core_;
  std::uint64_t descriptor_ = 0, int_status_ = 0, int_enable_ = 0, error_code_ = 0, cycles_ = 0;
};

}  // namespace neuronsim::detail
