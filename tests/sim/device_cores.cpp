// Several cores in one simulation: a Device's cores share its HBM max-min fairly between
// them; cores with HBMs of their own do not interact.
#include <catch2/catch.hpp>

#include "core_support.hpp"
#include "neuronsim/device.hpp"

using namespace core_test;
using neuronsim::isa::DType;
using neuronsim::isa::Engine;
using neuronsim::isa::MemSpace;

namespace {

// One [128, 512] fp32 load from HBM on a queue over all 16 DMA engines.
isa::Kernel load_kernel() {
  auto k = kernel("load");
  const auto t = tensor(k, "in", isa::TensorRole::input, DType::fp32, 128, 512);
  const auto a = alloc(k, "a", MemSpace::sbuf, DType::fp32, 128, 512, 0);
  const auto q = queue(k, "q0", 0, 16);
  k.stream(Engine::sync)
      .push_back(op(isa::DmaCopy{tile(k, a), rows_of(k, t), q, false, false, std::nullopt,
                                 std::nullopt, false}));
  return k;
}

}  // namespace

TEST_CASE("device: two cores sharing a narrow HBM each get half of it", "[device]") {
  auto cfg = target("trn1");  // 2 cores per chip
  // 128 rows x 2048 bytes over 16 DMA engines: 16384 bytes per part, each part capped at
  // 17 B/ns (core_support's pinned DMA numbers). Alone, 16 x 17 = 272 B/ns < 410 B/ns of
  // the core's share: every part runs at 17 B/ns. With the chip's bandwidth set to 272 B/ns
  // and both cores streaming, the chip is split evenly between the two cores (136 B/ns
  // each) and within a core between its 16 parts: 8.5 B/ns each.
  cfg.hbm.chip_bytes_per_ns = 272;
  require_elaboration("test");
  Device device("device", cfg);
  REQUIRE(device.core_count() == 2);
  Hbm own_hbm("own_hbm", cfg);
  NeuronCore alone("alone", cfg);
  bind_checked(alone, own_hbm.socket);
  const auto k = std::make_shared<const isa::Kernel>(load_kernel());
  LaunchRequest r;
  r.kernel = k;
  r.timing_only = true;
  const LaunchHandle lone = alone.launch(r);
  const LaunchHandle c0 = device.core(0).launch(r);
  const LaunchHandle c1 = device.core(1).launch(r);
  sc_core::sc_start();
  // Alone: descriptor 50 ns + first byte 1000 ns + 16384 B / 17 B/ns = 2013.765 ns.
  CHECK(lone->result().total_ns == Approx(1050 + 16384.0 / 17).margin(0.001));
  // Shared: 1050 ns + 16384 B / 8.5 B/ns = 2977.529 ns on both cores.
  CHECK(c0->result().total_ns == Approx(1050 + 16384.0 / 8.5).margin(0.001));
  CHECK(c1->result().total_ns == c0->result().total_ns);
  // Each core's DMA went out through its own port of the shared HBM.
  CHECK(device.hbm.bytes_read(0) == 128 * 2048);
  CHECK(device.hbm.bytes_read(1) == 128 * 2048);
  CHECK(device.hbm.bytes_written(0) == 0);
}

TEST_CASE("device: eight trn2 cores, each within its share, run as fast as one alone", "[device]") {
  const auto cfg = target("trn2");
  // trn2 splits 2900 B/ns over 8 cores and core_support pins each core's share at 410 B/ns
  // (its DMA engines reach 16 x 17 = 272 B/ns): 8 x 272 = 2176 B/ns < 2900, so nothing is
  // held back and every core takes the lone core's time. Tensors of different cores live
  // in different windows of the one HBM.
  require_elaboration("test");
  Device device("device", cfg);
  REQUIRE(device.core_count() == 8);
  const auto k = std::make_shared<const isa::Kernel>(load_kernel());
  std::vector<LaunchHandle> launches;
  for (std::size_t i = 0; i < 8; ++i) {
    LaunchRequest r;
    r.kernel = k;
    r.inputs["in"] = std::vector<std::uint8_t>(128 * 2048, static_cast<std::uint8_t>(i));
    launches.push_back(device.core(i).launch(r));
  }
  sc_core::sc_start();
  const std::uint64_t window = cfg.hbm.capacity_bytes / 8;
  for (std::size_t i = 0; i < 8; ++i) {
    const LaunchResult& r = launches[i]->result();
    REQUIRE(r.ok());
    CHECK(r.total_ns == Approx(1050 + 16384.0 / 17).margin(0.001));
    CHECK(r.tensor_addresses.at("in") == window * i);
    std::uint8_t byte = 0xAA;
    device.hbm.read(window * i + 100, &byte, 1);
    CHECK(byte == i);
  }
}
