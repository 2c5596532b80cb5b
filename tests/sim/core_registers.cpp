// A register-level host: an ordinary SystemC initiator that puts a NEFF, its inputs and a
// kernel descriptor into HBM, rings the doorbell, sleeps on the interrupt and reads the
// outputs back, with no C++ call into the core.
#include <catch2/catch.hpp>

#include <cstring>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "core_support.hpp"
#include "neff/neff.hpp"
#include "neuronsim/tlm.hpp"

using namespace core_test;
using neuronsim::isa::AluOp;
using neuronsim::isa::DType;
using neuronsim::isa::Engine;
using neuronsim::isa::MemSpace;

namespace {

// out = a + b, [128, 512] fp32, loaded and stored by DMA.
isa::Kernel add_kernel() {
  auto k = kernel("add");
  const auto a = tensor(k, "a", isa::TensorRole::input, DType::fp32, 128, 512);
  const auto b = tensor(k, "b", isa::TensorRole::input, DType::fp32, 128, 512);
  const auto out = tensor(k, "out", isa::TensorRole::output, DType::fp32, 128, 512);
  const auto xa = alloc(k, "xa", MemSpace::sbuf, DType::fp32, 128, 512, 0);
  const auto xb = alloc(k, "xb", MemSpace::sbuf, DType::fp32, 128, 512, 2048);
  const auto xo = alloc(k, "xo", MemSpace::sbuf, DType::fp32, 128, 512, 4096);
  const auto q = queue(k, "q0", 0, 16);
  const auto in = semaphore(k, "in"), done = semaphore(k, "done");
  k.stream(Engine::sync)
      .push_back(op(isa::DmaCopy{tile(k, xa), rows_of(k, a), q, false, false, std::nullopt,
                                 std::nullopt, false},
                    {}, {inc(in)}));
  k.stream(Engine::sync)
      .push_back(op(isa::DmaCopy{tile(k, xb), rows_of(k, b), q, false, false, std::nullopt,
                                 std::nullopt, false},
                    {}, {inc(in)}));
  k.stream(Engine::vector)
      .push_back(op(isa::TensorTensor{tile(k, xo), tile(k, xa), tile(k, xb), AluOp::add}, {{in, 2}},
                    {inc(done)}));
  k.stream(Engine::sync)
      .push_back(op(isa::DmaCopy{rows_of(k, out), tile(k, xo), q, false, false, std::nullopt,
                                 std::nullopt, false},
                    {{done, 1}}));
  return k;
}

constexpr std::uint64_t kNeffAt = 0x10000, kDescriptorAt = 0x1000;
constexpr std::uint64_t kA = 0x100000, kB = 0x200000, kOut = 0x300000, kBytes = 128 * 512 * 4;

// What the host does: run the kernel (and then ring a bad descriptor); ring a bad one and
// clear kIntStatus in the same delta; ring the kernel from 5 us ahead of simulated time
// (a temporally decoupled host with a quantum keeper).
enum class Scenario { run, refusal_cleared_at_once, decoupled };

struct Host : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Host> mem{"mem"}, regs{"regs"};
  Scenario scenario = Scenario::run;
  bool irq_rose = false;
  std::string error_text;
  sc_core::sc_in<bool> irq{"irq"};
  std::vector<std::uint8_t> neff, result;
  std::uint64_t cycles = 0, status = 0, error = 0, int_after_clear = 1;
  bool irq_after_clear = true;
  std::uint64_t bad_status = 0, bad_error = 0;
  sc_core::sc_time raised;

  SC_HAS_PROCESS(Host);
  Host(sc_core::sc_module_name n, std::vector<std::uint8_t> neff_bytes)
      : sc_module(n), neff(std::move(neff_bytes)) {
    SC_THREAD(run);
  }

  void poke(std::uint64_t at, const void* data, std::uint64_t n) {
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(at);
    t.set_data_ptr(static_cast<unsigned char*>(const_cast<void*>(data)));
    t.set_data_length(static_cast<unsigned>(n));
    t.set_streaming_width(static_cast<unsigned>(n));
    REQUIRE(mem->transport_dbg(t) == n);
  }
  // One 8-byte register access (little-endian, as this machine).
  std::uint64_t reg(tlm::tlm_command command, std::uint64_t offset, std::uint64_t value = 0,
                    sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
    tlm::tlm_generic_payload t;
    t.set_command(command);
    t.set_address(offset);
    t.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    t.set_data_length(8);
    t.set_streaming_width(8);
    regs->b_transport(t, delay);
    REQUIRE(t.is_response_ok());
    return value;
  }
  void reg_write(std::uint64_t offset, std::uint64_t value) {
    reg(tlm::TLM_WRITE_COMMAND, offset, value);
  }
  std::uint64_t reg_read(std::uint64_t offset) { return reg(tlm::TLM_READ_COMMAND, offset); }
  void descriptor(std::uint64_t neff_bytes) {
    std::vector<std::uint8_t> d(descriptor::kHeaderBytes + 3 * 8, 0);
    auto put = [&](std::size_t at, std::uint64_t v, int n) {
      for (int i = 0; i < n; ++i)
        d[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
    };
    put(0, descriptor::kMagic, 4);
    put(4, descriptor::kVersion, 4);
    put(8, kNeffAt, 8);
    put(16, neff_bytes, 8);
    put(24, 3, 4);
    put(32, kA, 8);
    put(40, kB, 8);
    put(48, kOut, 8);
    poke(kDescriptorAt, d.data(), d.size());
  }

  void run() {
    if (scenario == Scenario::refusal_cleared_at_once) {
      const std::uint32_t junk = 0xdeadbeef;
      poke(kDescriptorAt, &junk, 4);
      reg_write(regs::kDescriptor, kDescriptorAt);
      reg_write(regs::kIntEnable, regs::kIntDone | regs::kIntError);
      reg_write(regs::kDoorbell, 1);
      reg_write(regs::kIntStatus, regs::kIntDone | regs::kIntError);  // the same delta
      sc_core::wait(sc_core::sc_time(1, sc_core::SC_US), irq.posedge_event());
      irq_rose = irq.read();
      bad_status = reg_read(regs::kIntStatus);
      bad_error = reg_read(regs::kErrorCode);
      error_text = read_error_text(regs);
      return;
    }
    sc_core::wait(1, sc_core::SC_US);
    if (scenario == Scenario::decoupled) {
      poke(kNeffAt, neff.data(), neff.size());
      descriptor(neff.size());
      tlm_utils::tlm_quantumkeeper qk;
      qk.set_global_quantum(sc_core::sc_time(10, sc_core::SC_US));
      qk.reset();
      qk.inc(sc_core::sc_time(5, sc_core::SC_US));  // this host's work so far, not yet synced
      reg_write(regs::kDescriptor, kDescriptorAt);
      reg_write(regs::kIntEnable, regs::kIntDone);
      reg(tlm::TLM_WRITE_COMMAND, regs::kDoorbell, 1, qk.get_local_time());
      sc_core::wait(irq.posedge_event());
      raised = sc_core::sc_time_stamp();
      return;
    }
    poke(kNeffAt, neff.data(), neff.size());
    std::vector<float> a(kBytes / 4, 1.5f), b(kBytes / 4, 2.25f);
    poke(kA, a.data(), kBytes);
    poke(kB, b.data(), kBytes);
    descriptor(neff.size());
    REQUIRE(reg_read(regs::kId) == regs::kIdValue);
    reg_write(regs::kDescriptor, kDescriptorAt);
    reg_write(regs::kIntEnable, regs::kIntDone | regs::kIntError);
    reg_write(regs::kDoorbell, 1);
    status = reg_read(regs::kStatus);
    sc_core::wait(irq.posedge_event());
    raised = sc_core::sc_time_stamp();
    error = reg_read(regs::kErrorCode);
    cycles = reg_read(regs::kCycles);
    const std::uint64_t bits = reg_read(regs::kIntStatus);
    reg_write(regs::kIntStatus, bits);  // write 1 to clear
    int_after_clear = reg_read(regs::kIntStatus);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    irq_after_clear = irq.read();
    result.resize(kBytes);
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(kOut);
    t.set_data_ptr(result.data());
    t.set_data_length(kBytes);
    t.set_streaming_width(kBytes);
    REQUIRE(mem->transport_dbg(t) == kBytes);
    // A descriptor with a bad magic number: the core reports it and raises the interrupt.
    const std::uint32_t junk = 0xdeadbeef;
    poke(kDescriptorAt, &junk, 4);
    reg_write(regs::kDoorbell, 1);
    if (!irq.read()) sc_core::wait(irq.posedge_event());
    bad_status = reg_read(regs::kIntStatus);
    bad_error = reg_read(regs::kErrorCode);
  }
};

// A host on a core and its HBM, and the same kernel through the C++ API on a core of its
// own, for the expected time.
struct Platform {
  Hbm hbm, hbm2;
  NeuronCore core, reference;
  Host host;
  LaunchHandle expected;
  Platform(const config::TargetConfig& cfg, const isa::Kernel& k, Scenario scenario)
      : hbm("hbm", cfg),
        hbm2("hbm2", cfg),
        core("core", cfg),
        reference("reference", cfg),
        host("host", neff::write(k)) {
    host.scenario = scenario;
    bind_checked(core, hbm.socket);
    host.mem.bind(hbm.socket);
    host.regs.bind(core.regs);
    host.irq(core.irq);
    bind_checked(reference, hbm2.socket);
    LaunchRequest r = request(k);
    r.inputs["a"] = std::vector<std::uint8_t>(kBytes, 0);
    r.inputs["b"] = std::vector<std::uint8_t>(kBytes, 0);
    expected = reference.launch(r);
  }
  // When the host's irq should rise: `start` + the kernel's time alone.
  sc_core::sc_time done_after(sc_core::sc_time start) const {
    return start +
           sc_core::sc_time(static_cast<double>(expected->result().total_ps), sc_core::SC_PS);
  }
};

}  // namespace

TEST_CASE("registers: a host runs a kernel through the doorbell and the interrupt", "[regs]") {
  const auto cfg = target("trn1");
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
  require_elaboration("test");
  Platform p(cfg, add_kernel(), Scenario::run);
  Host& host = p.host;
  NeuronCore& core = p.core;
  sc_core::sc_start();
  REQUIRE(p.expected->finished());
  CHECK((host.status & regs::kStatusBusy) != 0);
  CHECK(host.error == regs::kErrorNone);
  // The interrupt rose when the launch ended: 1 us (the host's start) + the kernel's time.
  CHECK(host.raised == p.done_after(sc_core::sc_time(1, sc_core::SC_US)));
  CHECK(host.cycles == p.expected->result().neuroncore_cycle_count);
  CHECK(host.int_after_clear == 0);
  CHECK_FALSE(host.irq_after_clear);
  float v = 0;
  std::memcpy(&v, host.result.data() + 4 * 1000, 4);
  CHECK(v == 3.75f);
  CHECK(host.bad_status == (regs::kIntDone | regs::kIntError));
  CHECK(host.bad_error == regs::kErrorDescriptor);
  CHECK(core.launches_finished() == 1);
}

TEST_CASE(
    "registers: a refused doorbell cleared in the same delta still raises irq, and says "
    "why",
    "[regs]") {
  // Before: the refusal set kIntStatus inside the doorbell write and the host's clear in
  // the same delta took it back, so irq never changed; the reason was only a warning.
  const auto cfg = target("trn1");
  sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
  require_elaboration("test");
  Platform p(cfg, add_kernel(), Scenario::refusal_cleared_at_once);
  const Host& host = p.host;
  sc_core::sc_start();
  CHECK(host.irq_rose);
  CHECK(host.bad_status == (regs::kIntDone | regs::kIntError));
  CHECK(host.bad_error == regs::kErrorDescriptor);
  CHECK(host.error_text == "core: descriptor at 0x1000: bad magic");
}

TEST_CASE("registers: a temporally decoupled host's doorbell launches at its local time",
          "[regs]") {
  // Before: the block ignored the delay, so the launch began 5 us early and the host saw
  // it finish 5 us sooner than the time it had annotated.
  const auto cfg = target("trn1");
  require_elaboration("test");
  Platform p(cfg, add_kernel(), Scenario::decoupled);
  sc_core::sc_start();
  // 1 us (the host's start) + 5 us (its local time) + the kernel's time.
  CHECK(p.host.raised == p.done_after(sc_core::sc_time(6, sc_core::SC_US)));
}
