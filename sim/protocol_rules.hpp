#pragma once
// The TLM-2.0 base-protocol rules a blocking initiator and its target must keep (IEEE
// 1666-2011 chapters 11 and 14), each a check that names the rule it finds broken, or
// null when the transaction keeps them. Written from the standard. Two users: the public
// passthrough neuronsim::ProtocolChecker (include/neuronsim/protocol_checker.hpp), and
// every NeuronCore, which checks its own HBM traffic when CoreOptions::check_protocol is
// set (the test suite sets it for every core: NEURONSIM_CHECK_PROTOCOL=1).
#include <string>

#include <systemc>
#include <tlm>

namespace neuronsim::sim {

// What a target may not change (14.17, table 53).
struct PayloadAttributes {
  tlm::tlm_command command;
  sc_dt::uint64 address;
  unsigned char* data;
  unsigned int length, width;
  unsigned char* byte_enable;
  unsigned int byte_enable_length;
  explicit PayloadAttributes(const tlm::tlm_generic_payload& t);
  bool operator==(const PayloadAttributes& o) const;
};

// What the initiator must have set before b_transport (blocking) or transport_dbg.
const char* broken_request_rule(const tlm::tlm_generic_payload& t, bool blocking);
// What b_transport's target must leave: the attributes as they were, a response status.
const char* broken_response_rule(const tlm::tlm_generic_payload& t,
                                 const PayloadAttributes& before);
// transport_dbg returns at most the data length.
const char* broken_debug_rule(const tlm::tlm_generic_payload& t, unsigned int returned);
// A DMI answer: the region contains the address asked for; a grant has a pointer and access.
const char* broken_dmi_rule(sc_dt::uint64 address, bool granted, const tlm::tlm_dmi& dmi);
// invalidate_direct_mem_ptr's range has start <= end.
const char* broken_invalidate_rule(sc_dt::uint64 start, sc_dt::uint64 end);

// "<who>: base protocol broken (IEEE 1666-2011 <rule>) by a read of N bytes at 0x..".
std::string protocol_violation(const std::string& who, const char* rule,
                               const tlm::tlm_generic_payload& t);

}  // namespace neuronsim::sim
