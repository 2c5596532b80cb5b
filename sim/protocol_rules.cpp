#include "sim/protocol_rules.hpp"

#include <sstream>

namespace neuronsim::sim {

PayloadAttributes::PayloadAttributes(const tlm::tlm_generic_payload& t)
    : command(t.get_command()),
      address(t.get_address()),
      data(t.get_data_ptr()),
      length(t.get_data_length()),
      width(t.get_streaming_width()),
      byte_enable(t.get_byte_enable_ptr()),
      byte_enable_length(t.get_byte_enable_length()) {}

bool PayloadAttributes::operator==(const PayloadAttributes& o) const {
  return command == o.command && address == o.address && data == o.data && length == o.length &&
         width == o.width && byte_enable == o.byte_enable &&
         byte_enable_length == o.byte_enable_length;
}

const char* broken_request_rule(const tlm::tlm_generic_payload& t, bool blocking) {
  const tlm::tlm_command c = t.get_command();
  if (c != tlm::TLM_READ_COMMAND && c != tlm::TLM_WRITE_COMMAND && c != tlm::TLM_IGNORE_COMMAND)
    return "14.17.c: the command is READ, WRITE or IGNORE";
  if (!blocking) {
    if (t.get_data_length() > 0 && !t.get_data_ptr())
      return "14.17.f, 11.3.4: a debug transaction of n > 0 bytes points at n bytes";
    return nullptr;
  }
  if (t.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
    return "14.17.j: the initiator sets TLM_INCOMPLETE_RESPONSE before the call";
  if (t.get_data_length() == 0) return "14.17.g: the data length is greater than 0";
  if (c != tlm::TLM_IGNORE_COMMAND && !t.get_data_ptr())
    return "14.17.f: the data pointer points at the data array (not null)";
  if (t.get_streaming_width() == 0) return "14.17.i: the streaming width is greater than 0";
  if (t.get_byte_enable_ptr() && t.get_byte_enable_length() == 0)
    return "14.17.h: a byte enable array has a length greater than 0";
  if (t.is_dmi_allowed()) return "14.17.k: the DMI hint is false before the call";
  const sc_core::sc_process_handle p = sc_core::sc_get_current_process_handle();
  if (!p.valid() || p.proc_kind() != sc_core::SC_THREAD_PROC_)
    return "11.1.1.3: b_transport is called from a thread process (it may wait)";
  return nullptr;
}

const char* broken_response_rule(const tlm::tlm_generic_payload& t,
                                 const PayloadAttributes& before) {
  if (!(PayloadAttributes(t) == before))
    return "14.17, table 53: the target leaves command, address, data, lengths unchanged";
  if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
    return "14.17.j: the target sets a response status before b_transport returns";
  return nullptr;
}

const char* broken_debug_rule(const tlm::tlm_generic_payload& t, unsigned int returned) {
  if (returned > t.get_data_length())
    return "11.3.4: transport_dbg returns at most the data length";
  return nullptr;
}

const char* broken_dmi_rule(sc_dt::uint64 address, bool granted, const tlm::tlm_dmi& dmi) {
  // 11.2.5: granted or not, the region returned contains the address asked for.
  if (dmi.get_start_address() > address || dmi.get_end_address() < address)
    return "11.2.5: the DMI region returned contains the address asked for";
  if (granted && !dmi.get_dmi_ptr()) return "11.2.5: a granted DMI region has a pointer";
  if (granted && dmi.get_granted_access() == tlm::tlm_dmi::DMI_ACCESS_NONE)
    return "11.2.5: a granted DMI region allows reads or writes";
  return nullptr;
}

const char* broken_invalidate_rule(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (start > end) return "11.2.6: an invalidated range has start <= end";
  return nullptr;
}

std::string protocol_violation(const std::string& who, const char* rule,
                               const tlm::tlm_generic_payload& t) {
  std::ostringstream m;
  m << who << ": base protocol broken (IEEE 1666-2011 " << rule << ") by a "
    << (t.is_read()    ? "read"
        : t.is_write() ? "write"
                       : "ignore")
    << " of " << t.get_data_length() << " bytes at 0x" << std::hex << t.get_address();
  return m.str();
}

}  // namespace neuronsim::sim
