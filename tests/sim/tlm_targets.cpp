// What a core does with a kernel built for another target, what an Hbm says when cores of
// another generation share it, and the base-protocol checks a core makes of its own HBM
// traffic and that neuronsim::ProtocolChecker makes between any initiator and target
// (docs/embedding.md, "Configuration in code" and "Checking the protocol").
#include <catch2/catch.hpp>

#include "core_support.hpp"
#include "tests/sim/copying_memory.hpp"

using namespace core_test;

namespace {

LaunchRequest squares(float v) {
  isa::Kernel k = square_kernel();
  k.target = "trn1";  // built for trn1
  LaunchRequest r = request(k);
  r.inputs["in"] = floats(v);
  return r;
}

float first_output(const LaunchResult& r) {
  float v = 0;
  std::memcpy(&v, r.outputs.at("out").data(), 4);
  return v;
}

// A memory that breaks one rule of the base protocol: it moves the payload's address on.
// The core does not read the address back, so without a check nothing would notice.
struct AddressMovingMemory : CopyingMemory {
  AddressMovingMemory(sc_core::sc_module_name n, std::size_t size)
      : CopyingMemory(n, size, sc_core::SC_ZERO_TIME, false) {
    moves_address = true;
  }
};

}  // namespace

TEST_CASE("targets: a core refuses a kernel built for another generation", "[tlm]") {
  require_elaboration("test");
  const auto trn2 = target("trn2");
  const auto trn2_file =
      config::load_target(NEURONSIM_SOURCE_DIR "/examples/configs/trn2_slow_dma.json");
  Hbm hbm("hbm", trn2);
  NeuronCore core("core", trn2, {0, 1 << 30, true}),
      other("other", trn2_file, {1 << 30, 1 << 30, true});
  core.hbm.bind(hbm.socket);
  other.hbm.bind(hbm.socket);
  LaunchRequest trn1_kernel = squares(3);
  CHECK_THROWS_WITH(core.launch(trn1_kernel),
                    Catch::Contains("core: square: built for trn1 (NeuronCore-v2); this core is "
                                    "trn2 (NeuronCore-v3)"));
  LaunchRequest not_a_preset = squares(3);
  auto k = std::make_shared<isa::Kernel>(*not_a_preset.kernel);
  k->target = "trn2-slow-dma";
  not_a_preset.kernel = k;
  CHECK_THROWS_WITH(core.launch(not_a_preset),
                    Catch::Contains("built for target 'trn2-slow-dma', which is not a preset"));
  // Asked for on purpose, it runs; so does a kernel of the same generation on a core of an
  // override file (trn2-slow-dma is based on trn2) and the file's own kernel on it.
  LaunchRequest on_purpose = squares(3);
  on_purpose.other_target = true;
  LaunchRequest same_generation = squares(2);
  auto k2 = std::make_shared<isa::Kernel>(*same_generation.kernel);
  k2->target = "trn2";
  same_generation.kernel = k2;
  const LaunchHandle a = core.launch(on_purpose), b = other.launch(same_generation),
                     c = other.launch(not_a_preset);
  sc_core::sc_start();
  REQUIRE(a->result().ok());
  REQUIRE(b->result().ok());
  REQUIRE(c->result().ok());
  CHECK(first_output(a->result()) == 9.0f);
  CHECK(first_output(b->result()) == 4.0f);
}

TEST_CASE("targets: a core told to warn runs the kernel and says so once per kernel", "[tlm]") {
  require_elaboration("test");
  const auto trn2 = target("trn2");
  Hbm hbm("hbm", trn2);
  CoreOptions warn;
  warn.other_target_kernels = OtherTargetKernels::warn;
  NeuronCore core("core", trn2, warn);
  core.hbm.bind(hbm.socket);
  sc_core::sc_report_handler::set_actions("neuronsim/target", sc_core::SC_WARNING,
                                          sc_core::SC_DO_NOTHING);
  LaunchRequest r = squares(3);
  const LaunchHandle a = core.launch(r), b = core.launch(r);  // one kernel object, twice
  sc_core::sc_start();
  REQUIRE(a->result().ok());
  REQUIRE(b->result().ok());
  CHECK(sc_core::sc_report_handler::get_count("neuronsim/target") == 1);
}

TEST_CASE("targets: an Hbm serving a core of another generation says which figures it uses",
          "[tlm]") {
  // A trn2 core on a trn1 Hbm gets trn1's per-port share and chip bandwidth: before, it
  // said nothing. Now each port that carries such a core's traffic is named once.
  require_elaboration("test");
  const auto trn1 = target("trn1"), trn2 = target("trn2");
  Hbm hbm("hbm", trn1);
  NeuronCore same("same", trn1, {0, 1 << 30, true}), newer("newer", trn2, {1 << 30, 1 << 30, true});
  same.hbm.bind(hbm.socket);   // port 0
  newer.hbm.bind(hbm.socket);  // port 1
  sc_core::sc_report_handler::set_actions("neuronsim/hbm", sc_core::SC_WARNING,
                                          sc_core::SC_DO_NOTHING);
  LaunchRequest on_trn2 = squares(3);
  on_trn2.other_target = true;  // the kernel is trn1's; the test is about the memory
  const LaunchHandle a = same.launch(squares(3)), b = newer.launch(on_trn2),
                     c = newer.launch(on_trn2);
  sc_core::sc_start();
  REQUIRE(a->result().ok());
  REQUIRE(b->result().ok());
  REQUIRE(c->result().ok());
  CHECK(sc_core::sc_report_handler::get_count("neuronsim/hbm") == 1);  // port 1, once
  CHECK_THAT(hbm.figures(), Catch::Contains("every port the figures of trn1 (NeuronCore-v2)") &&
                                Catch::Contains("410 bytes/ns per port (dma.hbm_bytes_per_ns)"));
}

TEST_CASE("protocol: a core checks its own HBM traffic and fails the launch naming the rule",
          "[tlm]") {
  require_elaboration("test");
  const auto cfg = target("trn1");
  AddressMovingMemory checked_memory("checked_memory", 64 << 20),
      unchecked_memory("unchecked_memory", 64 << 20);
  CoreOptions check, no_check;
  check.check_protocol = true;
  no_check.check_protocol = false;
  check.share_window = no_check.share_window = true;  // separate memories without DMI
  NeuronCore checking("checking", cfg, check), trusting("trusting", cfg, no_check);
  checking.hbm.bind(checked_memory.socket);
  trusting.hbm.bind(unchecked_memory.socket);
  const LaunchHandle a = checking.launch(squares(3)), b = trusting.launch(squares(3));
  sc_core::sc_start();
  CHECK_THAT(a->result().error,
             Catch::Contains("checking.hbm: base protocol broken (IEEE 1666-2011 14.17, table "
                             "53: the target leaves command, address, data, lengths "
                             "unchanged) by a read of 16384 bytes at 0x"));
  CHECK(b->result().ok());  // unchecked, the broken rule goes unseen
}

TEST_CASE("protocol: ProtocolChecker between a core and a memory reports a broken rule", "[tlm]") {
  require_elaboration("test");
  const auto cfg = target("trn1");
  AddressMovingMemory memory("memory", 64 << 20);
  CoreOptions no_check;
  no_check.check_protocol = false;  // only the checker in the path
  NeuronCore core("core", cfg, no_check);
  ProtocolChecker checker("checker");
  core.hbm.bind(checker.target);
  checker.initiator.bind(memory.socket);
  const LaunchHandle a = core.launch(squares(3));
  sc_core::sc_start();
  CHECK_THAT(a->result().error,
             Catch::Contains("checker: base protocol broken (IEEE 1666-2011 14.17, table 53"));
  CHECK(checker.transports() >= 1);
  CHECK(checker.debug_transports() >= 1);  // the window probe and the input load
  CHECK(checker.dmi_requests() >= 1);
}

TEST_CASE("clock: a core on an sc_clock runs its engines at the clock's frequency", "[tlm]") {
  // Tensor at 0.5 GHz (a 2 ns period) and the other engines at their ratios to it: the
  // Vector multiply takes the same cycles as on the target's own clocks, and its time
  // grows by vector_ghz / (vector_ghz x 0.5 / tensor_ghz) = 2 x tensor_ghz.
  require_elaboration("test");
  const auto cfg = target("trn1");
  Hbm hbm("hbm", cfg);
  NeuronCore own("own", cfg, {0, 1 << 30, true}), clocked("clocked", cfg, {1 << 30, 1 << 30, true});
  own.hbm.bind(hbm.socket);
  clocked.hbm.bind(hbm.socket);
  sc_core::sc_clock clock("clock", sc_core::sc_time(2, sc_core::SC_NS));
  clocked.clk.bind(clock);
  const LaunchHandle a = own.launch(squares(3)), b = clocked.launch(squares(3));
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_MS));
  REQUIRE(a->result().ok());
  REQUIRE(b->result().ok());
  CHECK(clocked.config().tensor_ghz == Approx(0.5));
  CHECK(clocked.config().vector_ghz == Approx(cfg.vector_ghz * 0.5 / cfg.tensor_ghz));
  const auto& fast = a->result().stats.engines[static_cast<int>(isa::Engine::vector)];
  const auto& slow = b->result().stats.engines[static_cast<int>(isa::Engine::vector)];
  CHECK(slow.busy_cycles == fast.busy_cycles);
  CHECK(static_cast<double>(slow.time.busy_ps) ==
        Approx(static_cast<double>(fast.time.busy_ps) * 2 * cfg.tensor_ghz));
  CHECK(first_output(b->result()) == 9.0f);
}

TEST_CASE("clock: a clock input bound to a plain signal is refused at elaboration", "[tlm]") {
  require_elaboration("test");
  const auto cfg = target("trn1");
  Hbm hbm("hbm", cfg);
  NeuronCore core("core", cfg);
  core.hbm.bind(hbm.socket);
  sc_core::sc_signal<bool> not_a_clock("not_a_clock");
  core.clk.bind(not_a_clock);
  CHECK_THROWS_WITH(sc_core::sc_start(),
                    Catch::Contains("core.clk: bound to a signal that is not an sc_clock"));
}
