#pragma once
// An ordinary TLM-2.0 memory, as a platform would write one (DRAMSys's and VCML's copy
// through the data pointer the same way): a byte vector; b_transport copies the payload's
// data in or out and annotates a fixed latency; optional DMI over all of it; transport_dbg.
// It knows nothing of neuronsim's DmaRateExtension.
#include <cstring>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

namespace core_test {

struct CopyingMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<CopyingMemory> socket{"socket"};
  std::vector<std::uint8_t> bytes;
  sc_core::sc_time latency;  // annotated per b_transport
  bool dmi = false;
  // Breaks one rule of the base protocol (IEEE 1666-2011 14.17, table 53: a target leaves
  // the address as it found it): for the tests of the protocol checks.
  bool moves_address = false;
  std::uint64_t transports = 0, written = 0;

  CopyingMemory(sc_core::sc_module_name n, std::size_t size, sc_core::sc_time latency, bool dmi)
      : sc_module(n), bytes(size), latency(latency), dmi(dmi) {
    socket.register_b_transport(this, &CopyingMemory::b_transport);
    socket.register_transport_dbg(this, &CopyingMemory::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &CopyingMemory::get_direct_mem_ptr);
  }
  bool in_range(const tlm::tlm_generic_payload& t, std::uint64_t n) const {
    return t.get_address() <= bytes.size() && n <= bytes.size() - t.get_address();
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    ++transports;
    const std::uint64_t n = t.get_data_length(), w = t.get_streaming_width();
    if (!in_range(t, w) || t.get_byte_enable_ptr()) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    std::uint8_t* mine = bytes.data() + t.get_address();
    for (std::uint64_t at = 0; at < n; at += w) {  // a streaming width repeats the window
      const std::uint64_t k = std::min(w, n - at);
      if (t.is_read()) std::memcpy(t.get_data_ptr() + at, mine, k);
      if (t.is_write()) std::memmove(mine, t.get_data_ptr() + at, k);
    }
    if (t.is_write()) written += n;
    delay += latency;
    t.set_dmi_allowed(dmi);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    if (moves_address) t.set_address(t.get_address() + 1);
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& t) {
    if (!in_range(t, t.get_data_length())) return 0;
    std::uint8_t* mine = bytes.data() + t.get_address();
    if (t.is_read()) std::memcpy(t.get_data_ptr(), mine, t.get_data_length());
    if (t.is_write()) std::memcpy(mine, t.get_data_ptr(), t.get_data_length());
    return t.get_data_length();
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& d) {
    d.set_start_address(0);
    d.set_end_address(bytes.size() - 1);
    if (!dmi) return false;
    d.set_dmi_ptr(bytes.data());
    d.allow_read_write();
    return true;
  }
};

}  // namespace core_test
