// Scenario tests of the DMA model's fixed costs (docs/simulation.md, "DMA"): descriptors
// from a hardware DGE block, software DGE on GpSimd or prebuilt; the first-byte latency
// overlapping the data phase of the parts ahead; trace records at the first byte. Uses
// core_support's pinned DMA numbers: 17 B/ns per engine, 410 B/ns of HBM, 2 DGE blocks of
// 50 ns, software DGE 300 ns, 1000 ns to the first byte. One simulation per TEST_CASE.
#include <catch2/catch.hpp>

#include "core_support.hpp"
#include "neuronsim/run.hpp"

using namespace core_test;
using neuronsim::isa::DType;
using neuronsim::isa::Engine;
using neuronsim::isa::MemSpace;

namespace {

// Loads of `count` [rows, 512] fp32 tensors (2 KiB rows) into SBUF tiles on partitions
// [first, first + rows), all issued by `issuer` on one queue of 16 engines.
isa::Kernel loads(std::uint32_t count, std::uint32_t rows, Engine issuer,
                  const std::vector<std::uint32_t>& first_partitions) {
  auto k = kernel("dma_loads");
  const auto q = queue(k, "q0", 0, 16);
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto t =
        tensor(k, "in" + std::to_string(i), isa::TensorRole::input, DType::fp32, rows, 512);
    const auto a =
        alloc(k, "a" + std::to_string(i), MemSpace::sbuf, DType::fp32, rows, 512, 2048 * i);
    k.allocations[a].start_partition = first_partitions.at(i);
    k.stream(issuer).push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, t), q, false, false,
                                               std::nullopt, std::nullopt, false}));
  }
  return k;
}

RunResult timed(const isa::Kernel& k, const config::TargetConfig& cfg, Recorder* rec) {
  RunOptions opt;
  opt.timing_only = true;
  if (rec) opt.observers = {rec};
  return run_kernel(k, cfg, {}, opt);
}

}  // namespace

TEST_CASE("dma: the latency of a part overlaps the data phase of the part ahead", "[dma]") {
  // Two [128, 512] loads at once: each is 16 parts of 16384 B, one per engine. Both get
  // descriptors at 50 ns (two DGE blocks) and are ready at 1050 ns; each engine then moves
  // its two parts back to back: 1050 + 2 x 16384 / 17 = 2977.529 ns. Serialising the fixed
  // costs per part would take 2 x (1050 + 16384 / 17) = 4027.529 ns.
  Recorder rec;
  const auto r = timed(loads(2, 128, Engine::sync, {0, 0}), target("trn2"), &rec);
  CHECK(r.total_ns == Approx(1050 + 2 * 16384.0 / 17).margin(0.002));
  // The trace records the first byte: the second transfer's parts start when the first's
  // end, not at 1050 ns.
  REQUIRE(rec.dma_starts.size() == 32);
  for (const auto& d : rec.dma_starts) {
    const double start_ns = static_cast<double>(d.start_ps) / 1000;
    CHECK(start_ns == Approx(d.transfer == 0 ? 1050 : 1050 + 16384.0 / 17).margin(0.002));
  }
  // Every engine was busy moving bytes for exactly its two data phases.
  CHECK(r.stats.dma_engines.at(0).busy_ps / 1000.0 == Approx(2 * 16384.0 / 17).margin(0.002));
}

TEST_CASE("dma: two hardware DGE blocks make descriptors for two transfers at a time", "[dma]") {
  // Three 8-row loads onto partitions 0, 32 and 64 (tile starts the partition rules allow):
  // engines 0, 4 and 8, so their data never share an engine, and 3 x 17 B/ns is far below HBM. The
  // third waits for a DGE block: descriptors at 100 ns, first byte at 1100 ns, done at 1100 + 16384
  // / 17 = 2063.765 ns.
  Recorder rec;
  const auto r = timed(loads(3, 8, Engine::sync, {0, 32, 64}), target("trn2"), &rec);
  CHECK(r.total_ns == Approx(1100 + 16384.0 / 17).margin(0.002));
  REQUIRE(rec.dma_starts.size() == 3);
  CHECK(rec.dma_starts[2].dma_engine == 8);
  CHECK(rec.dma_starts[2].start_ps == 1100000);
  // The issuing Sync engine paid nothing.
  CHECK(r.stats.engines[static_cast<int>(Engine::sync)].time.busy_ps == 0);
}

TEST_CASE("dma: with one DGE block descriptors come one transfer at a time", "[dma]") {
  // As above with dge_instances 1: descriptors at 50, 100 and 150 ns.
  auto one = target("trn2");
  one.dma.dge_instances = 1;
  const auto r1 = timed(loads(3, 8, Engine::sync, {0, 32, 64}), one, nullptr);
  CHECK(r1.total_ns == Approx(1150 + 16384.0 / 17).margin(0.002));
}

TEST_CASE("dma: GpSimd makes its own descriptors (software DGE) and is busy meanwhile", "[dma]") {
  // One [128, 512] load issued by GpSimd: GpSimd is busy 300 ns, then the parts are ready
  // 1000 ns later: 1300 + 16384 / 17 = 2263.765 ns.
  Recorder rec;
  const auto r = timed(loads(1, 128, Engine::gpsimd, {0}), target("trn2"), &rec);
  CHECK(r.total_ns == Approx(1300 + 16384.0 / 17).margin(0.002));
  const auto& gpsimd = r.stats.engines[static_cast<int>(Engine::gpsimd)].time;
  CHECK(gpsimd.busy_ps == 300'000);
  // 300 ns at trn2's 1.2 GHz GpSimd clock = 360 cycles.
  CHECK(rec.end_of(Engine::gpsimd, 0).busy_cycles == 360);
}

TEST_CASE("dma: prebuilt descriptors (no DGE block) cost nothing at run time", "[dma]") {
  // trn1 has no hardware DGE (dge_instances 0): a Sync-issued load's parts are ready
  // 1000 ns after issue: 1000 + 16384 / 17 = 1963.765 ns.
  auto cfg = target("trn1");
  cfg.dma.dge_instances = 0;
  const auto r = timed(loads(1, 128, Engine::sync, {0}), cfg, nullptr);
  CHECK(r.total_ns == Approx(1000 + 16384.0 / 17).margin(0.002));
}

TEST_CASE("dma: a stream of transfers on one queue reaches the engines' bandwidth", "[dma]") {
  // 32 loads of [128, 512] fp32 (256 KiB each) on one queue: after the first 1050 ns every
  // engine moves 32 parts back to back. 16 engines x 17 B/ns = 272 B/ns < 410 B/ns of HBM:
  // 1050 + 32 x 16384 / 17 = 31890.412 ns, 8 MiB / that = 263.0 B/ns, 96.7% of 272.
  std::vector<std::uint32_t> zeros(32, 0);
  const auto r = timed(loads(32, 128, Engine::sync, zeros), target("trn2"), nullptr);
  CHECK(r.total_ns == Approx(1050 + 32 * 16384.0 / 17).margin(0.01));
}
