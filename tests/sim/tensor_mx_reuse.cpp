// The stationary of nc_matmul_mx in a run: its LoadStationary is paid, reused or hidden
// behind the multiply before it exactly as a plain matmul's (docs/cost-model.md, "Stationary
// reuse"), and what it holds is the data tile with its scale tile, so a rewrite of either
// reloads it and a plain matmul's stationary is never taken for an MX one. Each TEST_CASE
// is one simulation, in a process of its own under CTest.
#include <catch2/catch.hpp>

#include "core_support.hpp"
#include "neuronsim/run.hpp"

using namespace core_test;
using neuronsim::isa::DType;
using neuronsim::isa::Engine;
using neuronsim::isa::MemSpace;

namespace {

// trn3 (the MX target) with the throttle off, so each busy count is the cost model's alone:
// the throttle's own arithmetic is tests/sim/tensor_throttle.cpp's.
config::TargetConfig trn3_full_rate() {
  config::TargetConfig c = target("trn3");
  c.cost.tensor_throttle = 0;
  return c;
}

// Buffers of the MX kernels, bytes per partition: two stationaries fp8_e4m3fn_x4 [128,128]
// (512 bytes each), the moving fp8_e5m2_x4 [128,512] (2048), their uint8 scales: two
// [128,128] and one [128,512]; two fp32 [128,512] PSUM banks.
struct MxBuffers {
  std::uint32_t w0, w1, x, sw0, sw1, sx, p0, p1;
};
MxBuffers mx_buffers(isa::Kernel& k) {
  MxBuffers b;
  b.w0 = alloc(k, "w0", MemSpace::sbuf, DType::fp8_e4m3fn_x4, 128, 128, 0);
  b.w1 = alloc(k, "w1", MemSpace::sbuf, DType::fp8_e4m3fn_x4, 128, 128, 512);
  b.x = alloc(k, "x", MemSpace::sbuf, DType::fp8_e5m2_x4, 128, 512, 1024);
  b.sw0 = alloc(k, "sw0", MemSpace::sbuf, DType::uint8, 128, 128, 3072);
  b.sw1 = alloc(k, "sw1", MemSpace::sbuf, DType::uint8, 128, 128, 3200);
  b.sx = alloc(k, "sx", MemSpace::sbuf, DType::uint8, 128, 512, 3328);
  b.p0 = alloc(k, "p0", MemSpace::psum, DType::fp32, 128, 512, 0);
  b.p1 = alloc(k, "p1", MemSpace::psum, DType::fp32, 128, 512, 2048);
  return b;
}
isa::MatmulMx mx(const isa::Kernel& k, const MxBuffers& b, std::uint32_t dst, std::uint32_t w,
                 std::uint32_t sw) {
  return isa::MatmulMx{tile(k, dst), tile(k, w), tile(k, b.x), tile(k, sw), tile(k, b.sx)};
}

// Two nc_matmul_mx into a PSUM bank each: the second's stationary and its scale given.
isa::Kernel two_mx(bool same_data, bool same_scale) {
  auto k = kernel("mx_pair");
  const MxBuffers b = mx_buffers(k);
  auto& t = k.stream(Engine::tensor);
  t.push_back(op(mx(k, b, b.p0, b.w0, b.sw0)));
  t.push_back(op(mx(k, b, b.p1, same_data ? b.w0 : b.w1, same_scale ? b.sw0 : b.sw1)));
  return k;
}

// Makes Tensor instruction i (i >= 1) wait for a Vector memset of `buffer` that waits for
// instruction i - 1: when i - 1 starts, i is not ready, so nothing loads in the background
// and instruction i finds the array as i - 1 left it.
void gate(isa::Kernel& k, std::uint32_t i, std::uint32_t buffer) {
  const std::string n = std::to_string(i);
  const auto before_done = semaphore(k, "before_" + n + "_done");
  const auto gate_open = semaphore(k, "gate_" + n + "_open");
  k.stream(Engine::tensor).edit(i - 1, [&](isa::Instruction& instr) {
    instr.signals.push_back(inc(before_done));
  });
  k.stream(Engine::tensor).edit(i, [&](isa::Instruction& instr) {
    instr.waits.push_back({gate_open, 1});
  });
  isa::Memset ms;
  ms.dst = tile(k, buffer);
  ms.value = 127.0;  // for a scale tile: the e8m0 code of 2^0
  k.stream(Engine::vector).push_back(op(ms, {{before_done, 1}}, {inc(gate_open)}));
}

// A scratch [128, 64] fp32 SBUF buffer for gates that should write nothing the matmuls read.
std::uint32_t scratch(isa::Kernel& k) {
  return alloc(k, "scratch", MemSpace::sbuf, DType::fp32, 128, 64, 8192);
}

// Runs `k` on trn3 at full rate, recording every instruction into `rec`.
RunResult run_recorded(const isa::Kernel& k, Recorder& rec) {
  RunOptions opt;
  opt.observers = {&rec};
  return run_kernel(k, trn3_full_rate(), {}, opt);
}

std::uint64_t tensor_cycles(const RunResult& r) {
  return r.stats.core.clock_cycles[static_cast<int>(Engine::tensor)];
}

}  // namespace

TEST_CASE("mx reuse: the same stationary and scale twice pays one load", "[mx][stationary]") {
  Recorder rec;
  const auto r = run_recorded(two_mx(true, true), rec);
  // LoadStationary of M = 128 columns: ceil(128 / 4) = 32 cycles; MultiplyMoving of the 4K
  // contraction at mx_speedup 4: max(min(64, 128), 512 * 4 / 4) = 512 (tests/unit/cost_mx.cpp).
  // First 32 + 512, second 512 (reused): 1056 cycles, not 2 x 544 = 1088.
  CHECK(rec.end_of(Engine::tensor, 0).busy_cycles == 544);
  CHECK_FALSE(rec.end_of(Engine::tensor, 0).stationary_reused);
  CHECK(rec.end_of(Engine::tensor, 1).busy_cycles == 512);
  CHECK(rec.end_of(Engine::tensor, 1).stationary_reused);
  CHECK(tensor_cycles(r) == 1056);
}

TEST_CASE("mx reuse: the next MX stationary loads behind the current multiply",
          "[mx][stationary]") {
  Recorder rec;
  const auto r = run_recorded(two_mx(false, false), rec);
  // w1 with sw1 loads (32 cycles) during the first multiply (512), so the second finds it
  // loaded (recorded as reused: no load paid at issue): 32 + 512 + 512 = 1056, not the
  // 2 x 544 = 1088 of an MX matmul that paid its own load each time.
  CHECK(rec.end_of(Engine::tensor, 1).busy_cycles == 512);
  CHECK(rec.end_of(Engine::tensor, 1).stationary_reused);
  CHECK(tensor_cycles(r) == 1056);
}

TEST_CASE("mx reuse: after a gap, the same stationary and scale is still loaded",
          "[mx][stationary]") {
  auto k = two_mx(true, true);
  gate(k, 1, scratch(k));
  Recorder rec;
  run_recorded(k, rec);
  // Nothing touched w0 or sw0 in the gap: reused, 512.
  CHECK(rec.end_of(Engine::tensor, 1).busy_cycles == 512);
  CHECK(rec.end_of(Engine::tensor, 1).stationary_reused);
}

TEST_CASE("mx reuse: the same data with another scale tile is another stationary",
          "[mx][stationary]") {
  auto k = two_mx(true, false);
  gate(k, 1, scratch(k));
  Recorder rec;
  run_recorded(k, rec);
  // The array holds w0 dequantised by sw0, not by sw1, and nothing loaded in the background:
  // 32 load cycles + 512.
  CHECK(rec.end_of(Engine::tensor, 1).busy_cycles == 544);
  CHECK_FALSE(rec.end_of(Engine::tensor, 1).stationary_reused);
}

TEST_CASE("mx reuse: a scale tile rewritten since the load is loaded again", "[mx][stationary]") {
  auto k = two_mx(true, true);
  // The gate's Vector memset rewrites sw0 (buffer 3) between the two matmuls.
  gate(k, 1, 3);
  Recorder rec;
  run_recorded(k, rec);
  // Same access patterns, but the scales changed: 32 load cycles + 512.
  CHECK(rec.end_of(Engine::tensor, 1).busy_cycles == 544);
  CHECK_FALSE(rec.end_of(Engine::tensor, 1).stationary_reused);
}

TEST_CASE("mx reuse: a plain matmul in between replaces the MX stationary", "[mx][stationary]") {
  auto k = kernel("mx_plain_mx");
  const MxBuffers b = mx_buffers(k);
  const auto w_bf16 = alloc(k, "w_bf16", MemSpace::sbuf, DType::bf16, 128, 128, 4096);
  const auto x_bf16 = alloc(k, "x_bf16", MemSpace::sbuf, DType::bf16, 128, 512, 4352);
  auto& t = k.stream(Engine::tensor);
  t.push_back(op(mx(k, b, b.p0, b.w0, b.sw0)));
  t.push_back(op(isa::Matmul{tile(k, b.p1), tile(k, w_bf16), tile(k, x_bf16)}));
  t.push_back(op(mx(k, b, b.p0, b.w0, b.sw0)));
  const auto s = scratch(k);
  gate(k, 1, s);
  gate(k, 2, s);
  Recorder rec;
  run_recorded(k, rec);
  // Each pays its load (32 + 512 for the bf16 [128,128] x [128,512] and for the MX one):
  // the third finds the plain matmul's stationary in the array, not its own.
  for (std::uint32_t i = 0; i < 3; ++i) {
    CHECK(rec.end_of(Engine::tensor, i).busy_cycles == 544);
    CHECK_FALSE(rec.end_of(Engine::tensor, i).stationary_reused);
  }
}
