// Scenario tests of memory-port contention (reference section 2) and of timing-only runs.
#include <catch2/catch.hpp>

#include "core_support.hpp"
#include "neuronsim/run.hpp"

using namespace core_test;
using neuronsim::isa::AluOp;
using neuronsim::isa::DType;
using neuronsim::isa::Engine;
using neuronsim::isa::MemSpace;

namespace {

// An engine's time in ns, as the assertions state it.
struct NsTime {
  double busy_ns, port_wait_ns;
};
NsTime ns_time(const neuronsim::LaunchResult& r, Engine e) {
  const auto& t = r.stats.engines[static_cast<int>(e)].time;
  return {t.busy_ps / 1000.0, t.port_wait_ps / 1000.0};
}

// Vector and GpSimd each run one independent fp32 tensor_tensor on their own SBUF tiles.
isa::Kernel vector_and_gpsimd() {
  auto k = kernel("contention");
  std::uint32_t t[6];
  for (int i = 0; i < 6; ++i)
    t[i] = alloc(k, "t" + std::to_string(i), MemSpace::sbuf, DType::fp32, 128, 512,
                 static_cast<std::uint32_t>(i * 2048));
  k.stream(Engine::vector)
      .push_back(op(isa::TensorTensor{tile(k, t[2]), tile(k, t[0]), tile(k, t[1]), AluOp::add}));
  k.stream(Engine::gpsimd)
      .push_back(op(isa::TensorTensor{tile(k, t[5]), tile(k, t[3]), tile(k, t[4]), AluOp::add}));
  return k;
}

}  // namespace

TEST_CASE("core: Vector and GpSimd share the SBUF port on v2 and slow each other", "[core]") {
  const auto cfg = target("trn1");
  REQUIRE(cfg.vector_gpsimd_share_sbuf_port);
  const auto r = run_kernel(vector_and_gpsimd(), cfg, {}, {});
  const NsTime v = ns_time(r, Engine::vector);
  const NsTime g = ns_time(r, Engine::gpsimd);
  // Vector: max(64, 2*512) = 1024 cycles at 1.12 GHz = 914.286 ns; GpSimd: 1024 cycles at
  // 1.4 GHz = 731.429 ns. One port: one waits for the other, the total is the sum.
  CHECK(v.busy_ns == Approx(1024 / 1.12).margin(0.001));
  CHECK(g.busy_ns == Approx(1024 / 1.4).margin(0.001));
  CHECK(r.total_ns == Approx(v.busy_ns + g.busy_ns).margin(0.002));
  CHECK(v.port_wait_ns + g.port_wait_ns > 0);
  CHECK((v.port_wait_ns == Approx(g.busy_ns).margin(0.001) ||
         g.port_wait_ns == Approx(v.busy_ns).margin(0.001)));
}

TEST_CASE("core: Vector and GpSimd do not contend for SBUF on v3", "[core]") {
  const auto cfg = target("trn2");
  REQUIRE_FALSE(cfg.vector_gpsimd_share_sbuf_port);
  const auto r = run_kernel(vector_and_gpsimd(), cfg, {}, {});
  const NsTime v = ns_time(r, Engine::vector);
  const NsTime g = ns_time(r, Engine::gpsimd);
  CHECK(v.port_wait_ns == 0);
  CHECK(g.port_wait_ns == 0);
  CHECK(r.total_ns == Approx(std::max(v.busy_ns, g.busy_ns)).margin(0.001));
}

TEST_CASE("core: same-bank PSUM accesses conflict on v3 and other banks do not", "[core]") {
  // Vector and Scalar each read a PSUM tile; first in different banks, then the same bank
  // (two launches, one after the other, on one core).
  std::vector<LaunchRequest> requests;
  for (const bool same_bank : {false, true}) {
    auto k = kernel(same_bank ? "psum_same_bank" : "psum_other_banks");
    const auto p0 = alloc(k, "p0", MemSpace::psum, DType::fp32, 128, 256, 0);
    const auto p1 = alloc(k, "p1", MemSpace::psum, DType::fp32, 128, 256, same_bank ? 1024 : 2048);
    const auto s0 = alloc(k, "s0", MemSpace::sbuf, DType::fp32, 128, 256, 0);
    const auto s1 = alloc(k, "s1", MemSpace::sbuf, DType::fp32, 128, 256, 1024);
    k.stream(Engine::vector).push_back(op(isa::TensorCopy{tile(k, s0), tile(k, p0)}));
    isa::Activation act;
    act.dst = tile(k, s1);
    act.src = tile(k, p1);
    k.stream(Engine::scalar).push_back(op(act));
    requests.push_back(request(k));
  }
  const auto results = run_launches(target("trn2"), std::move(requests));
  auto waits = [](const LaunchResult& r) {
    return ns_time(r, Engine::vector).port_wait_ns + ns_time(r, Engine::scalar).port_wait_ns;
  };
  CHECK(waits(results[0]) == 0);
  CHECK(waits(results[1]) > 0);
}

TEST_CASE("core: a timing-only run has exactly the timing of the full run", "[core]") {
  // Vector -> Scalar chain with DMA in and out: every kind of wait in one kernel.
  auto build = [] {
    auto k = kernel("timing_only");
    const auto in = tensor(k, "in", isa::TensorRole::input, DType::fp32, 128, 512);
    const auto out = tensor(k, "out", isa::TensorRole::output, DType::fp32, 128, 512);
    const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 512, 0);
    const auto b = alloc(k, "b", MemSpace::sbuf, DType::fp32, 128, 512, 2048);
    const auto c = alloc(k, "c", MemSpace::sbuf, DType::fp32, 128, 512, 4096);
    const auto q = queue(k, "q0", 0, 16);
    const auto s_in = semaphore(k, "in"), s_v = semaphore(k, "v"), s_s = semaphore(k, "s");
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, in), q, false, false, std::nullopt,
                                   std::nullopt, false},
                      {}, {inc(s_in)}));
    k.stream(Engine::vector)
        .push_back(op(isa::TensorTensor{tile(k, b), tile(k, a), tile(k, a), AluOp::multiply},
                      {{s_in, 1}}, {inc(s_v)}));
    k.stream(Engine::gpsimd)
        .push_back(
            op(isa::TensorTensor{tile(k, c), tile(k, a), tile(k, a), AluOp::add}, {{s_in, 1}}));
    isa::Activation act;
    act.dst = tile(k, c);
    act.src = tile(k, b);
    act.func = isa::ActFunc::sqrt;
    k.stream(Engine::scalar).push_back(op(act, {{s_v, 1}}, {inc(s_s)}));
    k.stream(Engine::sync)
        .push_back(op(isa::DmaCopy{rows_of(k, out), tile(k, c), q, false, false, std::nullopt,
                                   std::nullopt, false},
                      {{s_s, 1}}));
    return k;
  };
  // Both on one core, one after the other: the timing-only launch first.
  std::vector<LaunchRequest> requests{request(build(), true), request(build(), false)};
  requests[1].inputs["in"] = std::vector<std::uint8_t>(128 * 512 * 4, 0x3f);
  const auto results = run_launches(target("trn1"), std::move(requests));
  auto text = [](const LaunchResult& r) {
    REQUIRE(r.ok());
    return r.stats.json_text(1) + "\noutputs: " + std::to_string(r.outputs.size());
  };
  const std::string timing_only = text(results[0]);
  const std::string full = text(results[1]);
  // Same statistics (every time, wait and byte count); only the outputs differ.
  CHECK(timing_only.substr(0, timing_only.find("outputs:")) ==
        full.substr(0, full.find("outputs:")));
  CHECK_THAT(timing_only, Catch::EndsWith("outputs: 0"));
  CHECK_THAT(full, Catch::EndsWith("outputs: 1"));
  CHECK_THAT(full, Catch::Contains("\"vector_engine_port_wait_ns\""));
}
