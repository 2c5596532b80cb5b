// How a dma_copy is cut into per-DMA-engine parts (engines/dma_split.cpp) and who makes its
// descriptors (engines/dma_descriptors.cpp): plain functions, no SystemC.
#include <catch2/catch.hpp>

#include "config/target_config.hpp"
#include "engines/dma_descriptors.hpp"
#include "engines/dma_split.hpp"

using namespace neuronsim;
using engines::DescriptorSource;

namespace {

struct Load {
  isa::Kernel kernel;
  isa::DmaCopy copy;
};

// HBM [rows, cols] of `dt` into an SBUF tile on partitions [first, first + rows), on a queue
// of `engines` DMA engines from `first_engine`.
Load load(std::uint32_t first, std::uint32_t rows, std::uint32_t cols, isa::DType dt,
          std::uint8_t first_engine = 0, std::uint8_t engines = 16) {
  Load l;
  isa::HbmTensor t;
  t.name = "t";
  t.dtype = dt;
  t.shape = {rows, cols};
  l.kernel.tensors.push_back(t);
  isa::Allocation a;
  a.name = "a";
  a.dtype = dt;
  a.start_partition = first;
  a.partitions = rows;
  a.free_shape = {cols};
  l.kernel.allocations.push_back(a);
  l.kernel.queues.push_back({"q", first_engine, engines});
  isa::AccessPattern hbm;
  hbm.space = isa::MemSpace::hbm;
  hbm.dtype = dt;
  hbm.partitions = rows;
  hbm.partition_stride = cols;
  hbm.dims[0] = {1, cols};
  isa::AccessPattern sbuf = hbm;
  sbuf.space = isa::MemSpace::sbuf;
  sbuf.partition_stride = 0;
  l.copy = isa::DmaCopy{sbuf, hbm, 0, false, false, std::nullopt, std::nullopt, false};
  return l;
}

const params::DmaParams& trn2() {
  static const config::TargetConfig c = config::load_target("trn2");
  return c.dma;
}

}  // namespace

TEST_CASE("dma split: 8 partitions per DMA engine, as the NKI DMA overview's examples", "[dma]") {
  REQUIRE(trn2().partitions_per_engine == 8);  // 128 partitions / 16 engines
  // nki-dma-overview.rst example 1: A[4, 4096] bf16 onto partitions 0-3 is one transfer
  // of 32 KiB on one DMA engine.
  const Load a = load(0, 4, 4096, isa::DType::bf16);
  const auto one = engines::split_transfer(a.kernel, a.copy, trn2());
  REQUIRE(one.size() == 1);
  CHECK(one[0].dma_engine == 0);
  CHECK(one[0].rows == 4);
  CHECK(one[0].bytes == 32768);
  // Example 2: A[128, 128] bf16 is 16 parts of 8 rows x 128 x 2 B = 2 KiB, one per engine.
  const Load b = load(0, 128, 128, isa::DType::bf16);
  const auto sixteen = engines::split_transfer(b.kernel, b.copy, trn2());
  REQUIRE(sixteen.size() == 16);
  for (std::uint32_t e = 0; e < 16; ++e) {
    CHECK(sixteen[e].dma_engine == e);
    CHECK(sixteen[e].first_row == 8 * e);
    CHECK(sixteen[e].rows == 8);
    CHECK(sixteen[e].bytes == 2048);
  }
}

TEST_CASE("dma split: the SBUF partitions pick the engines, wherever the tile starts", "[dma]") {
  // Partitions 36-47: rows 0-3 on engine 4 (partitions 32-39), rows 4-11 on engine 5.
  const Load l = load(36, 12, 256, isa::DType::fp32);
  const auto parts = engines::split_transfer(l.kernel, l.copy, trn2());
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].dma_engine == 4);
  CHECK(parts[0].rows == 4);
  CHECK(parts[0].bytes == 4 * 1024);
  CHECK(parts[1].dma_engine == 5);
  CHECK(parts[1].first_row == 4);
  CHECK(parts[1].bytes == 8 * 1024);
  // A store (SBUF source) splits by the source's partitions the same way.
  isa::DmaCopy store{l.copy.src, l.copy.dst, 0, false, false, std::nullopt, std::nullopt, false};
  const auto back = engines::split_transfer(l.kernel, store, trn2());
  REQUIRE(back.size() == 2);
  CHECK(back[0].dma_engine == 4);
  CHECK(back[1].dma_engine == 5);
}

TEST_CASE("dma split: a queue of fewer engines folds the partition groups onto them", "[dma]") {
  // Queue on engines 2-3: groups 0..3 (rows 0-31) go to 2, 3, 2, 3: four parts.
  const Load l = load(0, 32, 512, isa::DType::fp32, 2, 2);
  const auto parts = engines::split_transfer(l.kernel, l.copy, trn2());
  REQUIRE(parts.size() == 4);
  CHECK(parts[0].dma_engine == 2);
  CHECK(parts[1].dma_engine == 3);
  CHECK(parts[2].dma_engine == 2);
  CHECK(parts[3].dma_engine == 3);
  for (const auto& p : parts)
    CHECK(p.bytes == 8 * 2048);
  // A queue of one engine takes every group: consecutive rows on one engine are one part.
  const Load one = load(0, 128, 512, isa::DType::fp32, 0, 1);
  const auto all = engines::split_transfer(one.kernel, one.copy, trn2());
  REQUIRE(all.size() == 1);
  CHECK(all[0].dma_engine == 0);
  CHECK(all[0].bytes == 128 * 2048);
}

TEST_CASE("dma split: HBM to HBM splits rows evenly over the queue's engines", "[dma]") {
  Load l = load(0, 10, 64, isa::DType::fp32, 0, 4);
  l.copy.dst = l.copy.src;  // HBM to HBM
  const auto parts = engines::split_transfer(l.kernel, l.copy, trn2());
  REQUIRE(parts.size() == 4);
  // 10 rows over 4 engines: 3, 3, 2, 2 rows; bytes are exact shares of 2560.
  CHECK(parts[0].rows == 3);
  CHECK(parts[3].rows == 2);
  std::uint64_t total = 0;
  for (const auto& p : parts)
    total += p.bytes;
  CHECK(total == 10 * 64 * 4);
}

TEST_CASE("dma descriptors: hardware DGE for Sync and Scalar where it exists", "[dma]") {
  const auto t1 = config::load_target("trn1").dma;
  const auto t2 = config::load_target("trn2").dma;
  // trainium2_arch.rst: two DGE instances per NeuronCore-v3, commanded by Sync or Scalar;
  // none before v3 (descriptors prebuilt by the host); GpSimd runs software DGE.
  CHECK(t2.dge_instances == 2);
  CHECK(t1.dge_instances == 0);
  const isa::DmaCopy copy{};
  CHECK(engines::descriptor_source(isa::Engine::sync, copy, t2) == DescriptorSource::hardware_dge);
  CHECK(engines::descriptor_source(isa::Engine::scalar, copy, t2) ==
        DescriptorSource::hardware_dge);
  CHECK(engines::descriptor_source(isa::Engine::gpsimd, copy, t2) ==
        DescriptorSource::software_dge);
  CHECK(engines::descriptor_source(isa::Engine::vector, copy, t2) == DescriptorSource::prebuilt);
  CHECK(engines::descriptor_source(isa::Engine::sync, copy, t1) == DescriptorSource::prebuilt);
  CHECK(engines::descriptor_source(isa::Engine::gpsimd, copy, t1) ==
        DescriptorSource::software_dge);
  // dge_mode none (prebuilt_descriptors): the host's descriptors, whoever issues the copy.
  isa::DmaCopy prebuilt;
  prebuilt.prebuilt_descriptors = true;
  for (const auto e : {isa::Engine::sync, isa::Engine::scalar, isa::Engine::gpsimd})
    CHECK(engines::descriptor_source(e, prebuilt, t2) == DescriptorSource::prebuilt);
}

TEST_CASE("dma split: parts are the runs of rows whose partition group is on one engine", "[dma]") {
  // The rule, row by row: row r is on engine first_engine + ((first + r) / 8) % engines
  // (8 = trn2's partitions_per_engine); a part is a maximal run of consecutive rows on one
  // engine, its bytes its rows' exact share. Checked against split_transfer for every
  // start partition, many row counts and queues of 1 to 16 engines.
  const params::DmaParams& p = trn2();
  for (std::uint32_t first : {0u, 1u, 3u, 7u, 8u, 9u, 31u, 64u, 100u, 127u})
    for (std::uint32_t rows : {1u, 2u, 7u, 8u, 9u, 17u, 28u, 64u, 128u})
      for (std::uint8_t engines : {1, 2, 3, 5, 16}) {
        if (first + rows > 128) continue;
        const Load l = load(first, rows, 40, isa::DType::bf16, 2, engines);
        const std::uint64_t total = engines::dma_transfer_bytes(l.copy);
        auto engine_of = [&](std::uint32_t r) { return 2 + ((first + r) / 8) % engines; };
        std::vector<engines::DmaPartPlan> expected;
        for (std::uint32_t r = 0; r < rows;) {
          std::uint32_t end = r + 1;
          while (end < rows && engine_of(end) == engine_of(r))
            ++end;
          engines::DmaPartPlan part;
          part.dma_engine = static_cast<std::uint8_t>(engine_of(r) % p.engines);
          part.first_row = r;
          part.rows = end - r;
          part.bytes = total * end / rows - total * r / rows;
          expected.push_back(part);
          r = end;
        }
        std::vector<engines::DmaPartPlan> parts = {engines::DmaPartPlan{}};  // replaced
        engines::split_transfer(l.kernel, l.copy, p, parts);
        INFO("first " << first << " rows " << rows << " engines " << int{engines});
        REQUIRE(parts.size() == expected.size());
        for (std::size_t i = 0; i < parts.size(); ++i) {
          CHECK(parts[i].dma_engine == expected[i].dma_engine);
          CHECK(parts[i].hw_queue == 0);
          CHECK(parts[i].first_row == expected[i].first_row);
          CHECK(parts[i].rows == expected[i].rows);
          CHECK(parts[i].bytes == expected[i].bytes);
        }
      }
}

TEST_CASE("dma efficiency: a transpose moves at the published fraction of its copy's rate",
          "[dma]") {
  // nki-arch-v3, DMA transpose: 90% of a copy's bandwidth HBM to SBUF, 50% SBUF to SBUF.
  REQUIRE(trn2().transpose_hbm_efficiency == 0.9);
  REQUIRE(trn2().transpose_sbuf_efficiency == 0.5);
  // [128, 128] bf16: 256-byte rows on both sides, 256 / 2048 of full rate as a copy.
  Load l = load(0, 128, 128, isa::DType::bf16);
  const double copy = engines::dma_efficiency(l.copy, trn2());
  CHECK(copy == Approx(256.0 / 2048));
  l.copy.transpose = true;
  CHECK(engines::dma_efficiency(l.copy, trn2()) == Approx(0.9 * 256.0 / 2048));
  l.copy.src.space = isa::MemSpace::sbuf;
  l.copy.src.partition_stride = 0;
  CHECK(engines::dma_efficiency(l.copy, trn2()) == Approx(0.5 * 256.0 / 2048));
  // The parts follow the SBUF destination's partitions, as a copy's: 16 engines of 8 rows.
  CHECK(engines::split_transfer(l.kernel, l.copy, trn2()).size() == 16);
}

TEST_CASE("dma split: a gather or scatter moves one table row per index", "[dma]") {
  // A [1000, 64] fp32 table, 96 rows gathered into partitions 0-95: 96 x 256 bytes, split
  // as a copy of [96, 64] into SBUF (12 parts of 8 rows), each row its own 256-byte run.
  Load l = load(0, 96, 64, isa::DType::fp32);
  l.kernel.tensors[0].shape = {1000, 64};
  l.copy.src.partitions = 1000;
  isa::AccessPattern idx = l.copy.dst;
  idx.dtype = isa::DType::int32;
  idx.dims[0] = {1, 1};
  l.copy.src_index = idx;
  CHECK(engines::dma_transfer_bytes(l.copy) == 96 * 256);
  CHECK(engines::dma_side_bytes(l.copy, l.copy.src) == 96 * 256);
  CHECK(engines::dma_transfer_rows(l.copy) == 96);
  CHECK(engines::split_transfer(l.kernel, l.copy, trn2()).size() == 12);
  CHECK(engines::dma_efficiency(l.copy, trn2()) == Approx(256.0 / 2048));
  // The scatter back: src the 96 rows, dst the table, 96 rows by dst_index.
  isa::DmaCopy scatter{l.copy.src, l.copy.dst, 0, false, false, std::nullopt, std::nullopt, false};
  scatter.dst_index = idx;
  CHECK(engines::dma_transfer_bytes(scatter) == 96 * 256);
  CHECK(engines::dma_transfer_rows(scatter) == 96);
  CHECK(engines::split_transfer(l.kernel, scatter, trn2()).size() == 12);
}
