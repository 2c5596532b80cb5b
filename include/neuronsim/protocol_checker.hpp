#pragma once
// neuronsim::ProtocolChecker: a TLM-2.0 passthrough that checks every transaction between
// an initiator and a target against the base-protocol rules of IEEE 1666-2011 chapters 11
// and 14 that a blocking initiator and its target must keep (command, data pointer and
// lengths set before the call, attributes left unchanged and a response status set by the
// target, DMI regions that contain the address asked for, debug lengths), and reports the
// first one broken with SC_REPORT_ERROR (message type "neuronsim/protocol", naming the
// rule; SystemC's default action throws). Put it between any initiator and memory of a
// platform (docs/embedding.md, "Checking the protocol"):
//
//     neuronsim::ProtocolChecker checker("checker");
//     core.hbm.bind(checker.target);
//     checker.initiator.bind(memory.socket);
//
// A NeuronCore also checks its own HBM traffic by the same rules when
// CoreOptions::check_protocol is set, which needs no module in the path.
#include <cstdint>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

namespace neuronsim {

class ProtocolChecker : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ProtocolChecker> target;
  tlm_utils::simple_initiator_socket<ProtocolChecker> initiator;

  explicit ProtocolChecker(sc_core::sc_module_name name);

  // Calls seen, by interface.
  std::uint64_t transports() const { return transports_; }
  std::uint64_t debug_transports() const { return debug_; }
  std::uint64_t dmi_requests() const { return dmi_; }
  const char* kind() const override { return "neuronsim::ProtocolChecker"; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end);
  void fail(const char* rule, const tlm::tlm_generic_payload& trans) const;

  std::uint64_t transports_ = 0, debug_ = 0, dmi_ = 0;
};

}  // namespace neuronsim
