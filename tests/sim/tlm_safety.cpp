// What a platform can do to a core without crashing it or corrupting its tensors: tensor
// addresses past a memory's DMI region or the 64-bit address space, two cores on one
// memory, a memory of the platform's own that copies through the data pointer, a memory
// whose latency is an annotated delay (docs/embedding.md, "The sockets").
#include <catch2/catch.hpp>

#include "core_support.hpp"
#include "tests/sim/copying_memory.hpp"

using namespace core_test;

namespace {

sc_core::sc_time ns(double v) {
  return sc_core::sc_time(v, sc_core::SC_NS);
}

// A launch of square_kernel with `in` all `v`.
LaunchRequest squares(float v) {
  LaunchRequest r = request(square_kernel());
  r.inputs["in"] = floats(v);
  return r;
}

}  // namespace

TEST_CASE("safety: a tensor past the memory's DMI region fails its launch, not the process",
          "[tlm]") {
  // Before: the core's DMI check subtracted without checking the address first, took the
  // region granted for `in` as covering `out` and stored 256 KiB past the end of it.
  const auto cfg = target("trn1");
  require_elaboration("test");
  Hbm hbm("hbm", cfg);
  NeuronCore core("core", cfg);
  bind_checked(core, hbm.socket);
  LaunchRequest past = squares(3);
  past.tensor_addresses["out"] = hbm.size() + 0x1000;
  LaunchRequest wraps = past;
  wraps.tensor_addresses["out"] = UINT64_MAX - 0x1000;  // its 256 KiB pass 2^64
  LaunchRequest fine = squares(3);
  const LaunchHandle a = core.launch(past), b = core.launch(wraps), c = core.launch(fine);
  sc_core::sc_start();
  CHECK_THAT(a->result().error,
             Catch::Contains("HBM read of 262144 bytes at 0x") && Catch::Contains("failed"));
  CHECK_THAT(b->result().error,
             Catch::Contains("tensor 'out' (262144 bytes) at 0xffffffffffffefff runs past the "
                             "end of the 64-bit address space"));
  REQUIRE(c->result().ok());  // the core goes on
  float v = 0;
  std::memcpy(&v, c->result().outputs.at("out").data(), 4);
  CHECK(v == 9.0f);
}

TEST_CASE("safety: two bare cores on one memory are refused at elaboration", "[tlm]") {
  // Before: both took [0, 96 GiB) and placed their tensors at the same addresses; with
  // DMI one core's outputs were the other's.
  const auto cfg = target("trn1");
  require_elaboration("test");
  Hbm hbm("hbm", cfg);
  NeuronCore a("a", cfg), b("b", cfg);
  bind_checked(a, hbm.socket);
  bind_checked(b, hbm.socket);
  CHECK_THROWS_WITH(sc_core::sc_start(), Catch::Contains("b: its HBM window [0x0, 0x") &&
                                             Catch::Contains("overlaps a's [0x0, 0x") &&
                                             Catch::Contains("in the same memory") &&
                                             Catch::Contains("share_window"));
}

TEST_CASE("safety: cores on separate memories, or sharing on purpose, are accepted", "[tlm]") {
  const auto cfg = target("trn1");
  require_elaboration("test");
  Hbm one("one", cfg), other("other", cfg);
  CoreOptions shared;
  shared.share_window = true;
  NeuronCore a("a", cfg, shared), b("b", cfg, shared), c("c", cfg);
  bind_checked(a, one.socket);
  bind_checked(b, one.socket);
  bind_checked(c, other.socket);  // its window overlaps a's and b's addresses, not their memory
  const LaunchHandle l = c.launch(request(square_kernel(), true));
  sc_core::sc_start();
  CHECK(l->result().ok());
  CHECK(c.window_last() == other.size() - 1);
}

TEST_CASE("safety: the default window is the bound memory's, not the target's HBM", "[tlm]") {
  const auto cfg = target("trn1");
  require_elaboration("test");
  CopyingMemory small("small", (8 << 20) + 12345, ns(0), false);
  NeuronCore core("core", cfg);
  bind_checked(core, small.socket);
  LaunchRequest r = squares(2);
  const LaunchHandle l = core.launch(r);
  sc_core::sc_start();
  CHECK(core.window_first() == 0);
  CHECK(core.window_last() == (8 << 20) + 12345 - 1);  // found by debug reads
  REQUIRE(l->result().ok());
}

TEST_CASE(
    "safety: a memory that copies through the data pointer gets the data, with or "
    "without DMI",
    "[tlm]") {
  const auto cfg = target("trn1");
  require_elaboration("test");
  CopyingMemory plain("plain", 8 << 20, ns(0), false), direct("direct", 8 << 20, ns(0), true);
  // `plain` grants no DMI, so the cores cannot tell it from `direct`'s or the Hbm's memory:
  // the windows are declared as allowed to overlap.
  CoreOptions separate;
  separate.share_window = true;
  Hbm hbm("hbm", cfg);
  NeuronCore on_plain("on_plain", cfg, separate), on_direct("on_direct", cfg, separate),
      on_hbm("on_hbm", cfg, separate);
  ProtocolChecker& checked = bind_checked(on_plain, plain.socket);
  bind_checked(on_direct, direct.socket);
  bind_checked(on_hbm, hbm.socket);
  LaunchRequest r = squares(3);
  const LaunchHandle p = on_plain.launch(r), d = on_direct.launch(r), h = on_hbm.launch(r);
  sc_core::sc_start();
  for (const auto& l : {p, d, h})
    REQUIRE(l->result().ok());
  CHECK(p->result().outputs == h->result().outputs);
  CHECK(d->result().outputs == h->result().outputs);
  // The store's 16 parts carried the squares in their payloads: the memory holds them
  // before the launch's end writes staged tensors back.
  CHECK(plain.written == 128 * 512 * 4);
  float v = 0;
  std::memcpy(&v, plain.bytes.data() + p->result().tensor_addresses.at("out") + 4 * 777, 4);
  CHECK(v == 9.0f);
  CHECK(checked.transports() == 32);  // 2 transfers x 16 DMA engines, all checked
  // A memory that applies no rate limit and adds no latency: the DMA engines' own rate,
  // the bundled HBM's time.
  CHECK(p->result().total_ps == h->result().total_ps);
}

TEST_CASE("safety: a memory's annotated latency adds to every part", "[tlm]") {
  const auto cfg = target("trn1");
  require_elaboration("test");
  CopyingMemory zero("zero", 8 << 20, ns(0), false), slow("slow", 8 << 20, ns(100), false),
      slower("slower", 8 << 20, ns(10000), false);
  CoreOptions separate;  // three memories without DMI, which the cores cannot tell apart
  separate.share_window = true;
  NeuronCore a("a", cfg, separate), b("b", cfg, separate), c("c", cfg, separate);
  bind_checked(a, zero.socket);
  bind_checked(b, slow.socket);
  bind_checked(c, slower.socket);
  LaunchRequest r = squares(1);
  const LaunchHandle la = a.launch(r), lb = b.launch(r), lc = c.launch(r);
  sc_core::sc_start();
  // The load's and the store's 16 parts run side by side, one per DMA engine, and both
  // transfers are on the critical path: the launch is 2 x latency longer.
  CHECK(lb->result().total_ps == la->result().total_ps + 2 * 100'000);
  CHECK(lc->result().total_ps == la->result().total_ps + 2 * 10'000'000);
}

namespace {

// Raises a core's reset input at `at`, then queues one more launch.
struct Resetter : sc_core::sc_module {
  sc_core::sc_signal<bool> rst{"rst_signal", false};
  sc_core::sc_time at;
  NeuronCore& core;
  LaunchRequest after;
  LaunchHandle relaunched;
  SC_HAS_PROCESS(Resetter);
  Resetter(sc_core::sc_module_name n, NeuronCore& c, sc_core::sc_time when, LaunchRequest r)
      : sc_module(n), at(when), core(c), after(std::move(r)) {
    SC_THREAD(run);
  }
  void run() {
    sc_core::wait(at);
    rst.write(true);
    sc_core::wait(sc_core::SC_ZERO_TIME);  // the edge is seen in the next delta
    sc_core::wait(sc_core::SC_ZERO_TIME);  // and the reset happens in the one after
    relaunched = core.launch(after);
  }
};

}  // namespace

TEST_CASE("safety: a reset ends the running and queued launches, then the core runs again",
          "[tlm]") {
  const auto cfg = target("trn1");
  require_elaboration("test");
  Hbm hbm("hbm", cfg);
  NeuronCore core("core", cfg);
  bind_checked(core, hbm.socket);
  LaunchRequest r = squares(3);
  Resetter resetter("resetter", core, sc_core::sc_time(2, sc_core::SC_US), r);
  core.rst(resetter.rst);
  const LaunchHandle running = core.launch(r), queued = core.launch(r);
  sc_core::sc_start();
  CHECK_THAT(running->result().error, Catch::Equals("core: reset while the launch ran"));
  CHECK(running->result().finished >= sc_core::sc_time(2, sc_core::SC_US));
  CHECK_THAT(queued->result().error, Catch::Equals("core: reset before the launch started"));
  REQUIRE(resetter.relaunched);
  REQUIRE(resetter.relaunched->result().ok());
  float v = 0;
  std::memcpy(&v, resetter.relaunched->result().outputs.at("out").data(), 4);
  CHECK(v == 9.0f);
}
