// The bundled Hbm's storage (include/neuronsim/hbm.hpp, kChunkBytes): chunks mapped when
// first touched, side by side in the host's memory, so that one DMI range serves a tensor
// that crosses a chunk boundary (memory/address_reservation.hpp). The fallback, chunks
// mapped wherever the kernel puts them under an address-space limit, is
// tests/cli/address_space_limit.sh.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>

#include "core_support.hpp"

using namespace core_test;

namespace {

struct DmiProbe : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<DmiProbe> socket{"socket"};
  explicit DmiProbe(sc_core::sc_module_name n) : sc_module(n) {}

  // The DMI grant covering `address` (an empty tlm_dmi if refused).
  tlm::tlm_dmi grant(std::uint64_t address) {
    tlm::tlm_generic_payload trans;
    trans.set_command(tlm::TLM_READ_COMMAND);
    trans.set_address(address);
    tlm::tlm_dmi dmi;
    if (!socket->get_direct_mem_ptr(trans, dmi)) return tlm::tlm_dmi();
    return dmi;
  }
};

}  // namespace

TEST_CASE("hbm: neighbouring chunks are neighbours in the host's memory", "[tlm]") {
  require_elaboration("test");
  Hbm hbm("hbm", target("trn1"));  // 32 GiB: 512 chunks, reserved without memory
  DmiProbe probe("probe");
  probe.socket.bind(hbm.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // a multi-socket's bindings complete at elaboration
  const std::uint64_t chunk = Hbm::kChunkBytes;
  const tlm::tlm_dmi first = probe.grant(chunk - 1);  // the last byte of chunk 0
  const tlm::tlm_dmi second = probe.grant(chunk);     // the first of chunk 1
  REQUIRE(first.get_dmi_ptr() != nullptr);
  REQUIRE(second.get_dmi_ptr() != nullptr);
  CHECK(first.get_start_address() == 0);
  CHECK(first.get_end_address() == chunk - 1);
  CHECK(second.get_start_address() == chunk);
  CHECK(second.get_dmi_ptr() == first.get_dmi_ptr() + chunk);
  // The last chunk too, far from the first: the whole capacity is one range.
  const std::uint64_t last = hbm.size() - 1;
  const tlm::tlm_dmi end = probe.grant(last);
  REQUIRE(end.get_dmi_ptr() != nullptr);
  CHECK(end.get_dmi_ptr() + (last - end.get_start_address()) == first.get_dmi_ptr() + last);
}

TEST_CASE("hbm: bytes written across a chunk boundary read back, untouched bytes read zero",
          "[tlm]") {
  require_elaboration("test");
  Hbm hbm("hbm", target("trn1"));
  const std::uint64_t at = 3 * Hbm::kChunkBytes - 1000;  // 1000 bytes in chunk 2, 3000 in 3
  std::vector<std::uint8_t> bytes(4000);
  for (std::size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<std::uint8_t>(i * 7 + 1);
  hbm.write(at, bytes.data(), bytes.size());
  std::vector<std::uint8_t> back(bytes.size());
  hbm.read(at, back.data(), back.size());
  CHECK(back == bytes);
  std::vector<std::uint8_t> untouched(64, 0xff);
  hbm.read(7 * Hbm::kChunkBytes, untouched.data(), untouched.size());
  CHECK(untouched == std::vector<std::uint8_t>(64, 0));
}
