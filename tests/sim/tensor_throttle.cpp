// The Tensor engine's throttle in a run (tensor.throttle, docs/cost-model.md "Tensor
// throttle"): how much it adds to a burst of matmuls, that records, statistics and the
// untouched trn1 agree, and that an idle gap re-engages it. Each TEST_CASE is one
// simulation, in a process of its own under CTest.
#include <catch2/catch.hpp>

#include "core_support.hpp"
#include "cost/tensor_throttle.hpp"
#include "neuronsim/run.hpp"

using namespace core_test;
using neuronsim::isa::DType;
using neuronsim::isa::Engine;
using neuronsim::isa::MemSpace;

namespace {

constexpr int kMatmuls = 40;

// kMatmuls bf16 matmuls [K=128, M=128] x [128, N=512], one stationary, into one PSUM bank.
isa::Kernel matmul_burst() {
  auto k = kernel("burst");
  const auto w = alloc(k, "w", MemSpace::sbuf, DType::bf16, 128, 128, 0);
  const auto x = alloc(k, "x", MemSpace::sbuf, DType::bf16, 128, 512, 256);
  const auto p = alloc(k, "p", MemSpace::psum, DType::fp32, 128, 512, 0);
  auto& t = k.stream(Engine::tensor);
  for (int i = 0; i < kMatmuls; ++i)
    t.push_back(op(isa::Matmul{tile(k, p), tile(k, w), tile(k, x)}));
  return k;
}

std::uint64_t tensor_throttled_ps(const RunResult& r) {
  return r.stats.engines[static_cast<int>(Engine::tensor)].time.throttled_ps;
}

}  // namespace

TEST_CASE("tensor throttle: a burst of matmuls pays the ramp once on trn2", "[throttle]") {
  Recorder rec;
  RunOptions opt;
  opt.observers = {&rec};
  const auto r = run_kernel(matmul_burst(), target("trn2"), {}, opt);
  // Full rate: one LoadStationary of ceil(128 / 4) = 32 cycles, then 40 MultiplyMoving of
  // max(min(64, 128), 512) = 512: 20512 cycles (reference section 4). trn2's throttle
  // starts at s = 50% and ramps over R = 3000 ns x 2.4 GHz = 7200 cycles of work, in which
  // it does R (1 + s) / 2 = 5400 cycles' worth; the other 15112 run at full rate, so
  // 7200 + 15112 = 22312 cycles, the throttle adding R (1 - s) / 2 = 1800. Each of the
  // instructions in the ramp rounds up to a whole cycle, which also warms the ramp by as
  // much: within one cycle per instruction either way.
  const std::uint64_t cycles = r.stats.core.clock_cycles[static_cast<int>(Engine::tensor)];
  CHECK(cycles >= 22312 - kMatmuls);
  CHECK(cycles <= 22312 + kMatmuls);
  // The profiler's cycle counter on trn2 runs at 1.2 GHz, half the Tensor clock: 11156, within
  // half the rounding above (and half a cycle of its own).
  CHECK(r.neuroncore_cycle_count >= 11156 - kMatmuls / 2 - 1);
  CHECK(r.neuroncore_cycle_count <= 11156 + kMatmuls / 2 + 1);
  std::uint64_t throttle_ps = 0;
  for (const auto& e : rec.ends)
    throttle_ps += e.throttle_ps;
  CHECK(throttle_ps == tensor_throttled_ps(r));
  // 1800 cycles at 2.4 GHz = 750 ns, within the same rounding.
  CHECK(tensor_throttled_ps(r) >= 750'000 - kMatmuls * 417);
  CHECK(tensor_throttled_ps(r) <= 750'000 + kMatmuls * 417);
  // Released by the end: the last matmuls run at full rate.
  CHECK(rec.end_of(Engine::tensor, kMatmuls - 1).throttle_ps == 0);
  CHECK(rec.end_of(Engine::tensor, kMatmuls - 1).busy_cycles == 512);
}

TEST_CASE("tensor throttle: switched off, the burst runs at full rate", "[throttle]") {
  auto trn2_off = target("trn2");
  trn2_off.cost.tensor_throttle = 0;
  const auto r = run_kernel(matmul_burst(), trn2_off, {}, {});
  // 32 + 40 x 512 = 20512 cycles (see above), nothing throttled: 20512 / 2.4 = 8546.667 ns,
  // at trn2's profiler cycle counter (1.2 GHz) 8546.667 x 1.2 = 10256.
  CHECK(r.stats.core.clock_cycles[static_cast<int>(Engine::tensor)] == 20512);
  CHECK(r.neuroncore_cycle_count == 10256);
  CHECK(tensor_throttled_ps(r) == 0);
}

TEST_CASE("tensor throttle: trn1 has none", "[throttle]") {
  const auto r = run_kernel(matmul_burst(), target("trn1"), {}, {});
  CHECK(r.stats.core.clock_cycles[static_cast<int>(Engine::tensor)] ==
        20512);  // 32 + 40 x 512 at full rate
  // 20512 / 2.8 = 7325.714 ns, at trn1's profiler cycle counter (1.4 GHz): 10256.
  CHECK(r.neuroncore_cycle_count == 10256);
  CHECK(tensor_throttled_ps(r) == 0);
}

TEST_CASE("tensor throttle: an idle gap longer than the ramp re-engages it", "[throttle]") {
  // matmul 0, then a Vector memset of a bf16 [128, 32768] tile that matmul 1 waits for.
  auto k = kernel("gap");
  const auto w = alloc(k, "w", MemSpace::sbuf, DType::bf16, 128, 128, 0);
  const auto x = alloc(k, "x", MemSpace::sbuf, DType::bf16, 128, 512, 256);
  const auto big = alloc(k, "big", MemSpace::sbuf, DType::bf16, 128, 32768, 2048);
  const auto p = alloc(k, "p", MemSpace::psum, DType::fp32, 128, 512, 0);
  const auto done = semaphore(k, "memset_done");
  auto& t = k.stream(Engine::tensor);
  t.push_back(op(isa::Matmul{tile(k, p), tile(k, w), tile(k, x)}));
  t.push_back(op(isa::Matmul{tile(k, p), tile(k, w), tile(k, x)}, {{done, 1}}));
  isa::Memset ms;
  ms.dst = tile(k, big);
  ms.value = 0.0;
  k.stream(Engine::vector).push_back(op(ms, {}, {inc(done)}));
  Recorder rec;
  RunOptions opt;
  opt.observers = {&rec};
  run_kernel(k, target("trn2"), {}, opt);
  const auto& first = rec.end_of(Engine::tensor, 0);
  const auto& second = rec.end_of(Engine::tensor, 1);
  // The gap must be at least the ramp, 3000 ns, for the second matmul to start cold.
  REQUIRE(second.start_ps - first.end_ps >= 3'000'000);
  // Both start cold: 32 + 512 and 512 full-rate cycles at 50% rising over 7200 cycles,
  // as the model alone gives them (tests/unit/cost_tensor_throttle.cpp checks the model).
  neuronsim::isa::cost::TensorThrottle cold_a(50, 7200), cold_b(50, 7200);
  CHECK(first.busy_cycles == cold_a.run(0, 544));
  CHECK(second.busy_cycles == cold_b.run(0, 512));
  CHECK(second.throttle_ps > 0);
}
