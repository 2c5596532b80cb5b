#pragma once
// A TLM-2.0 base-protocol checker for the tests: a passthrough module between a core's hbm
// socket and a memory that checks every transaction against the rules of IEEE 1666-2011
// chapter 14 that a blocking initiator and target must keep, and stops the test process
// (SC_REPORT_FATAL) on the first one broken, naming the rule. Written from the standard;
// `bind_checked(core, memory.socket)` puts one in the path.
#include <sstream>
#include <string>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "neuronsim/neuron_core.hpp"

namespace core_test {

class ProtocolChecker : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<ProtocolChecker> target{"target"};
  tlm_utils::simple_initiator_socket<ProtocolChecker> initiator{"initiator"};
  std::uint64_t transports = 0, debug = 0, dmi = 0;  // calls seen

  explicit ProtocolChecker(sc_core::sc_module_name name) : sc_module(name) {
    target.register_b_transport(this, &ProtocolChecker::b_transport);
    target.register_transport_dbg(this, &ProtocolChecker::transport_dbg);
    target.register_get_direct_mem_ptr(this, &ProtocolChecker::get_direct_mem_ptr);
    initiator.register_invalidate_direct_mem_ptr(this, &ProtocolChecker::invalidate);
  }

 private:
  struct Attributes {  // what a target may not change (14.17, table 53)
    tlm::tlm_command command;
    sc_dt::uint64 address;
    unsigned char* data;
    unsigned int length, width;
    unsigned char* byte_enable;
    unsigned int byte_enable_length;
    explicit Attributes(const tlm::tlm_generic_payload& t)
        : command(t.get_command()),
          address(t.get_address()),
          data(t.get_data_ptr()),
          length(t.get_data_length()),
          width(t.get_streaming_width()),
          byte_enable(t.get_byte_enable_ptr()),
          byte_enable_length(t.get_byte_enable_length()) {}
    bool operator==(const Attributes& o) const {
      return command == o.command && address == o.address && data == o.data && length == o.length &&
             width == o.width && byte_enable == o.byte_enable &&
             byte_enable_length == o.byte_enable_length;
    }
  };

  void fail(const char* rule, const tlm::tlm_generic_payload& t) const {
    std::ostringstream m;
    m << name() << ": base protocol broken (IEEE 1666-2011 " << rule << ") by a "
      << (t.is_read()    ? "read"
          : t.is_write() ? "write"
                         : "ignore")
      << " of " << t.get_data_length() << " bytes at 0x" << std::hex << t.get_address();
    SC_REPORT_FATAL("neuronsim/protocol", m.str().c_str());
  }

  // What an initiator must have set before any transport call.
  void check_request(const tlm::tlm_generic_payload& t, bool blocking) const {
    const tlm::tlm_command c = t.get_command();
    if (c != tlm::TLM_READ_COMMAND && c != tlm::TLM_WRITE_COMMAND && c != tlm::TLM_IGNORE_COMMAND)
      fail("14.17.c: the command is READ, WRITE or IGNORE", t);
    if (!blocking) {
      if (t.get_data_length() > 0 && !t.get_data_ptr())
        fail("14.17.f, 11.3.4: a debug transaction of n > 0 bytes points at n bytes", t);
      return;
    }
    if (t.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
      fail("14.17.j: the initiator sets TLM_INCOMPLETE_RESPONSE before the call", t);
    if (t.get_data_length() == 0) fail("14.17.g: the data length is greater than 0", t);
    if (c != tlm::TLM_IGNORE_COMMAND && !t.get_data_ptr())
      fail("14.17.f: the data pointer points at the data array (not null)", t);
    if (t.get_streaming_width() == 0) fail("14.17.i: the streaming width is greater than 0", t);
    if (t.get_byte_enable_ptr() && t.get_byte_enable_length() == 0)
      fail("14.17.h: a byte enable array has a length greater than 0", t);
    if (t.is_dmi_allowed()) fail("14.17.k: the DMI hint is false before the call", t);
    const sc_core::sc_process_handle p = sc_core::sc_get_current_process_handle();
    if (!p.valid() || p.proc_kind() != sc_core::SC_THREAD_PROC_)
      fail("11.1.1.3: b_transport is called from a thread process (it may wait)", t);
  }

  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    ++transports;
    check_request(t, true);
    const Attributes before(t);
    initiator->b_transport(t, delay);
    if (!(Attributes(t) == before))
      fail("14.17, table 53: the target leaves command, address, data, lengths unchanged", t);
    if (t.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      fail("14.17.j: the target sets a response status before b_transport returns", t);
  }

  unsigned int transport_dbg(tlm::tlm_generic_payload& t) {
    ++debug;
    check_request(t, false);
    const unsigned int n = initiator->transport_dbg(t);
    if (n > t.get_data_length()) fail("11.3.4: transport_dbg returns at most the data length", t);
    return n;
  }

  bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& d) {
    ++dmi;
    const sc_dt::uint64 address = t.get_address();
    const bool granted = initiator->get_direct_mem_ptr(t, d);
    // 11.2.5: granted or not, the region returned contains the address asked for.
    if (d.get_start_address() > address || d.get_end_address() < address)
      fail("11.2.5: the DMI region returned contains the address asked for", t);
    if (granted && !d.get_dmi_ptr()) fail("11.2.5: a granted DMI region has a pointer", t);
    if (granted && d.get_granted_access() == tlm::tlm_dmi::DMI_ACCESS_NONE)
      fail("11.2.5: a granted DMI region allows reads or writes", t);
    return granted;
  }

  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
    if (start > end) {
      tlm::tlm_generic_payload t;
      fail("11.2.6: an invalidated range has start <= end", t);
    }
    target->invalidate_direct_mem_ptr(start, end);
  }
};

// Binds core.hbm to `memory` through a checker of its own (it lives as long as the process).
template <typename Socket>
ProtocolChecker& bind_checked(neuronsim::NeuronCore& core, Socket& memory) {
  auto* checker = new ProtocolChecker((std::string(core.basename()) + "_checker").c_str());
  core.hbm.bind(checker->target);
  checker->initiator.bind(memory);
  return *checker;
}

}  // namespace core_test
