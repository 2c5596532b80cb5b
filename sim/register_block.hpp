#pragma once
// The register block of a NeuronCore (neuronsim/tlm.hpp has the map; docs/embedding.md
// says how a host uses it): a host writes a kernel descriptor into HBM, puts its address
// in kDescriptor, rings kDoorbell and sleeps on irq; the core reads the descriptor and its
// NEFF (transport_dbg), launches it and, when it is done, sets kIntStatus and raises irq
// while kIntStatus & kIntEnable is not zero.
#include <cstdint>
#include <string>

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
  // A refused doorbell is reported one delta cycle after the write (as a launch's end is,
  // later): a host that clears kIntStatus in the write's delta still sees irq rise.
  sc_core::sc_event& refused() { return refused_; }
  void report_refusal();
  void reset();  // every register as after construction, irq low

 private:
  bool access(tlm::tlm_generic_payload& trans, bool side_effects);
  std::uint64_t read(std::uint64_t offset) const;
  bool write(std::uint64_t offset, std::uint64_t value, std::uint64_t mask, bool side_effects);
  void ring();
  void raise(std::uint64_t bits, std::uint64_t error_code, const std::string& reason);
  void update_irq();

  CoreState& core_;
  std::uint64_t descriptor_ = 0, int_status_ = 0, int_enable_ = 0, error_code_ = 0, cycles_ = 0;
  std::string error_text_;  // the reason of the last failure, at most kErrorTextBytes - 1
  sc_core::sc_event refused_;
  std::uint64_t refusal_code_ = 0;
  std::string refusal_reason_;
};

}  // namespace neuronsim::detail
