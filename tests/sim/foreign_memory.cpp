// A core bound to someone else's memory model instead of neuronsim::Hbm: one that offers
// no DMI, ignores the payload's data and annotates its delay instead of waiting. Data then
// moves by transport_dbg at the start and end of a launch, and the DMA engines take the
// annotated delay as latency on top of their own rate.
#include <catch2/catch.hpp>

#include <cstring>

#include <tlm_utils/simple_target_socket.h>

#include "base/error.hpp"
#include "core_support.hpp"

using namespace core_test;

namespace {

// A plain memory: a byte vector, no DMI, b_transport annotates bytes / rate.
struct PlainMemory : sc_core::sc_module {
  tlm_utils::simple_target_socket<PlainMemory> socket{"socket"};
  std::vector<std::uint8_t> bytes;
  double bytes_per_ns;
  std::uint64_t transports = 0, null_data = 0;

  PlainMemory(sc_core::sc_module_name n, std::size_t size, double rate)
      : sc_module(n), bytes(size), bytes_per_ns(rate) {
    socket.register_b_transport(this, &PlainMemory::b_transport);
    socket.register_transport_dbg(this, &PlainMemory::transport_dbg);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    ++transports;
    null_data += t.get_data_ptr() == nullptr;
    if (t.get_address() + t.get_data_length() > bytes.size()) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    delay += sc_core::sc_time(t.get_data_length() / bytes_per_ns, sc_core::SC_NS);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload& t) {
    if (t.get_address() + t.get_data_length() > bytes.size()) return 0;
    std::uint8_t* mine = bytes.data() + t.get_address();
    if (t.is_read()) std::memcpy(t.get_data_ptr(), mine, t.get_data_length());
    if (t.is_write()) std::memcpy(mine, t.get_data_ptr(), t.get_data_length());
    return t.get_data_length();
  }
};

}  // namespace

TEST_CASE("memory: a core works on a memory without DMI that annotates its delay", "[tlm]") {
  const auto cfg = target("trn1");
  require_elaboration("test");
  // Fast: 100 B/ns per transaction, faster than a DMA engine's 17 B/ns. Slow: 5 B/ns.
  PlainMemory fast("fast", 8 << 20, 100), slow("slow", 8 << 20, 5);
  Hbm hbm("hbm", cfg);
  // Two memories without DMI: the cores cannot tell them apart, so their windows, both at
  // 0, must be declared as allowed to overlap (docs/embedding.md, "NeuronCore").
  NeuronCore on_fast("on_fast", cfg, {0, 8 << 20, true}),
      on_slow("on_slow", cfg, {0, 8 << 20, true});
  NeuronCore on_hbm("on_hbm", cfg, {0, 0, true});
  bind_checked(on_fast, fast.socket);
  bind_checked(on_slow, slow.socket);
  bind_checked(on_hbm, hbm.socket);
  LaunchRequest r = request(square_kernel());
  r.inputs["in"] = floats(3);
  const LaunchHandle f = on_fast.launch(r), s = on_slow.launch(r), h = on_hbm.launch(r);
  sc_core::sc_start();
  for (const auto& l : {f, s, h})
    REQUIRE(l->result().ok());
  // The data went through transport_dbg: out = 9 everywhere, also in the memory itself.
  CHECK(f->result().outputs == h->result().outputs);
  CHECK(s->result().outputs == h->result().outputs);
  float in_memory = 0;
  std::memcpy(&in_memory, fast.bytes.data() + f->result().tensor_addresses.at("out") + 400, 4);
  CHECK(in_memory == 9.0f);
  // 32 parts (two transfers over 16 DMA engines), each with its data (the base protocol).
  CHECK(fast.transports == 32);
  CHECK(fast.null_data == 0);
  // The memory applies no rate limit, so its annotated time is latency on top of the DMA
  // engine's own rate (docs/embedding.md): each 16384-byte part takes 16384 / 17 ns plus
  // 16384 / 100 ns (fast) or 16384 / 5 ns (slow). Both transfers are on the critical path,
  // so the run is longer than on the bundled HBM by twice the latency.
  const double fast_longer = 2 * (16384.0 / 100), slow_longer = 2 * (16384.0 / 5);
  CHECK(f->result().total_ns == Approx(h->result().total_ns + fast_longer).margin(0.002));
  CHECK(s->result().total_ns == Approx(h->result().total_ns + slow_longer).margin(0.002));
}

TEST_CASE("memory: an address the memory refuses fails the launch with the address", "[tlm]") {
  const auto cfg = target("trn1");
  require_elaboration("test");
  PlainMemory small("small", 1 << 20, 100);  // holds `in` but not `out`
  NeuronCore core("core", cfg, {0, 8 << 20});
  bind_checked(core, small.socket);
  LaunchRequest r = request(square_kernel());
  r.timing_only = true;
  r.tensor_addresses["out"] = 4 << 20;
  const LaunchHandle l = core.launch(r);
  sc_core::sc_start();
  REQUIRE(l->finished());
  // The store's 16 parts all fail; whichever the core hears of first names the launch, the
  // instruction, the DMA engine, the address and why: timing only, a write carries the
  // bytes the memory already holds, and this memory has none there.
  CHECK_THAT(l->result().error, Catch::StartsWith("square: sync[1] dma_copy: core.dma.dma"));
  CHECK_THAT(l->result().error, Catch::Matches(".*HBM write of 16384 bytes at 0x4[0-3][0-9a-f]000 "
                                               "failed: a timing-only write carries the bytes "
                                               "already there, .*"));
}
