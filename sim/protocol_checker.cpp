#include "neuronsim/protocol_checker.hpp"

#include "sim/protocol_rules.hpp"

namespace neuronsim {

ProtocolChecker::ProtocolChecker(sc_core::sc_module_name name)
    : sc_module(name), target("target"), initiator("initiator") {
  target.register_b_transport(this, &ProtocolChecker::b_transport);
  target.register_transport_dbg(this, &ProtocolChecker::transport_dbg);
  target.register_get_direct_mem_ptr(this, &ProtocolChecker::get_direct_mem_ptr);
  initiator.register_invalidate_direct_mem_ptr(this, &ProtocolChecker::invalidate);
}

void ProtocolChecker::fail(const char* rule, const tlm::tlm_generic_payload& trans) const {
  SC_REPORT_ERROR("neuronsim/protocol", sim::protocol_violation(name(), rule, trans).c_str());
}

void ProtocolChecker::b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay) {
  ++transports_;
  if (const char* rule = sim::broken_request_rule(trans, true)) fail(rule, trans);
  const sim::PayloadAttributes before(trans);
  initiator->b_transport(trans, delay);
  if (const char* rule = sim::broken_response_rule(trans, before)) fail(rule, trans);
}

unsigned int ProtocolChecker::transport_dbg(tlm::tlm_generic_payload& trans) {
  ++debug_;
  if (const char* rule = sim::broken_request_rule(trans, false)) fail(rule, trans);
  const unsigned int n = initiator->transport_dbg(trans);
  if (const char* rule = sim::broken_debug_rule(trans, n)) fail(rule, trans);
  return n;
}

bool ProtocolChecker::get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi) {
  ++dmi_;
  const sc_dt::uint64 address = trans.get_address();
  const bool granted = initiator->get_direct_mem_ptr(trans, dmi);
  if (const char* rule = sim::broken_dmi_rule(address, granted, dmi)) fail(rule, trans);
  return granted;
}

void ProtocolChecker::invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (const char* rule = sim::broken_invalidate_rule(start, end)) {
    const tlm::tlm_generic_payload none;
    fail(rule, none);
  }
  target->invalidate_direct_mem_ptr(start, end);
}

}  // namespace neuronsim
