// reciprocal, tensor_partition_reduce and dropout (NKI's nki.isa pages of the same names)
// against references written out here.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "semantics/random.hpp"
#include "semantics_test_memory.hpp"

using namespace semantics_test;

namespace {
// v stored into dtype t and read back (the store rounds to nearest even).
float round_to(DType t, float v) {
  std::uint32_t bits = 0;
  store_fp32(t, v, &bits);
  return load_fp32(t, &bits);
}
}  // namespace

TEST_CASE("semantics: reciprocal is 1/x in fp32, cast to dst's dtype", "[semantics]") {
  // NKI reciprocal: casts to fp32, computes 1.0/x in fp32, casts to dst. fp32 in and out
  // must match the float division bit for bit; a bf16 dst is that value rounded to bf16.
  Bench b;
  const auto src_a = b.alloc(MemSpace::sbuf, DType::fp32, 8, 16);
  const auto dst_a = b.alloc(MemSpace::psum, DType::fp32, 8, 16);
  const auto bf_a = b.alloc(MemSpace::sbuf, DType::bf16, 8, 16, 0, 256);
  Reciprocal r{b.tile(dst_a, 8, 16), b.tile(src_a, 8, 16)};
  const auto x = b.fill_random(r.src, 700, 0.25, 4.0);
  b.set(r.src, 0, 0, 0.0f);   // 1/+0 = +inf
  b.set(r.src, 0, 1, -0.0f);  // 1/-0 = -inf
  b.set(r.src, 0, 2, -2.0f);
  b.run(r);
  CHECK(b.get(r.dst, 0, 0) == std::numeric_limits<float>::infinity());
  CHECK(b.get(r.dst, 0, 1) == -std::numeric_limits<float>::infinity());
  CHECK(b.get(r.dst, 0, 2) == -0.5f);
  for (std::uint32_t p = 1; p < 8; ++p)
    for (std::uint32_t f = 0; f < 16; ++f)
      REQUIRE(b.get(r.dst, p, f) == 1.0f / static_cast<float>(x[p * 16 + f]));

  SECTION("into bf16, and in place") {
    Reciprocal to_bf{b.tile(bf_a, 8, 16), b.tile(src_a, 8, 16)};
    b.run(to_bf);
    for (std::uint32_t p = 1; p < 8; ++p)
      for (std::uint32_t f = 0; f < 16; ++f) {
        const float exact = 1.0f / static_cast<float>(x[p * 16 + f]);
        REQUIRE(b.get(to_bf.dst, p, f) == round_to(DType::bf16, exact));
      }
    Reciprocal in_place{r.src, r.src};
    b.run(in_place);
    CHECK(b.get(r.src, 0, 2) == -0.5f);
    CHECK(b.get(r.src, 3, 5) == 1.0f / static_cast<float>(x[3 * 16 + 5]));
  }
}

TEST_CASE("semantics: tensor_partition_reduce folds the partitions in order", "[semantics]") {
  // NKI tensor_partition_reduce: dst[0, j] = op over p of src[p, j].
  Bench b;
  const auto src_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 24);
  const auto dst_a = b.alloc(MemSpace::sbuf, DType::fp32, 1, 24, 0, 1024);
  PartitionReduce pr{b.tile(dst_a, 1, 24), b.tile(src_a, 128, 24), AluOp::add};
  const auto x = b.fill_random(pr.src, 710, -1.0, 1.0);
  b.run(pr);
  for (std::uint32_t j = 0; j < 24; ++j) {
    float sum = static_cast<float>(x[j]);  // fp32, partition order: bit exact
    for (std::uint32_t p = 1; p < 128; ++p)
      sum += static_cast<float>(x[p * 24 + j]);
    REQUIRE(b.get(pr.dst, 0, j) == sum);
  }
  pr.op = AluOp::max;
  b.run(pr);
  for (std::uint32_t j = 0; j < 24; ++j) {
    double m = x[j];
    for (std::uint32_t p = 1; p < 128; ++p)
      m = std::max(m, x[p * 24 + j]);
    REQUIRE(b.get(pr.dst, 0, j) == static_cast<float>(m));
  }

  SECTION("bitvec ops on integers; other ops are refused") {
    const auto isrc = b.alloc(MemSpace::sbuf, DType::int32, 16, 4, 0, 2048);
    const auto idst = b.alloc(MemSpace::sbuf, DType::int32, 1, 4, 0, 4096);
    PartitionReduce ir{b.tile(idst, 1, 4), b.tile(isrc, 16, 4), AluOp::bitwise_or};
    for (std::uint32_t p = 0; p < 16; ++p)
      for (std::uint32_t j = 0; j < 4; ++j)
        b.set_int(ir.src, p, j, std::int64_t{1} << ((p + j) % 31));
    b.run(ir);
    for (std::uint32_t j = 0; j < 4; ++j) {
      std::int64_t want = 0;
      for (std::uint32_t p = 0; p < 16; ++p)
        want |= std::int64_t{1} << ((p + j) % 31);
      CHECK(b.get_int(ir.dst, 0, j) == want);
    }
    ir.op = AluOp::bitwise_xor;
    b.run(ir);
    for (std::uint32_t j = 0; j < 4; ++j) {
      std::int64_t want = 0;
      for (std::uint32_t p = 0; p < 16; ++p)
        want ^= std::int64_t{1} << ((p + j) % 31);
      CHECK(b.get_int(ir.dst, 0, j) == want);
    }
    ir.op = AluOp::bitwise_or;
    ir.src = b.tile(src_a, 16, 4);  // fp32 with a bitvec op
    CHECK_THROWS_WITH(b.run(ir), Catch::Contains("needs integer dtypes"));
    pr.op = AluOp::subtract;
    CHECK_THROWS_WITH(b.run(pr), Catch::Contains("not a partition reduction"));
    pr.op = AluOp::add;
    pr.dst = b.tile(src_a, 2, 24);
    CHECK_THROWS_WITH(b.run(pr), Catch::Contains("a reduction across the partitions of src"));
  }
}

TEST_CASE("semantics: dropout zeroes by neuronsim's generator and keeps the rest exactly",
          "[semantics]") {
  Bench b;
  const auto src_a = b.alloc(MemSpace::sbuf, DType::bf16, 128, 256);
  const auto dst_a = b.alloc(MemSpace::sbuf, DType::bf16, 128, 256, 0, 1024);
  const auto prob_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 1, 0, 2048);
  Dropout d{b.tile(dst_a, 128, 256), b.tile(src_a, 128, 256), 0.25f, 1234};
  const auto x = b.fill_random(d.src, 720, 1.0, 2.0);  // never zero
  b.run(d);
  std::uint64_t dropped = 0;
  for (std::uint32_t p = 0; p < 128; ++p)
    for (std::uint32_t f = 0; f < 256; ++f) {
      const bool drop = sem::uniform01(1234, p, f) < 0.25f;
      dropped += drop;
      REQUIRE(b.get(d.dst, p, f) == (drop ? 0.0f : static_cast<float>(x[p * 256 + f])));
    }
  // 32768 draws at p = 0.25: 8192 expected, sd sqrt(32768 * 0.25 * 0.75) = 78; 5 sd.
  CHECK(dropped > 8192 - 390);
  CHECK(dropped < 8192 + 390);

  SECTION("prob 0 keeps, prob 1 drops, per partition; the seed changes the mask") {
    d.prob = b.tile(prob_a, 128, 1);
    b.fill(std::get<AccessPattern>(d.prob),
           [](std::uint32_t p, std::uint64_t) { return p % 2 == 0 ? 0.0 : 1.0; });
    b.run(d);
    for (std::uint32_t p = 0; p < 128; ++p)
      for (std::uint32_t f = 0; f < 256; ++f)
        REQUIRE(b.get(d.dst, p, f) == (p % 2 ? 0.0f : static_cast<float>(x[p * 256 + f])));
    std::uint64_t differ = 0;
    for (std::uint32_t f = 0; f < 4096; ++f)
      differ += (sem::uniform01(1, 0, f) < 0.5f) != (sem::uniform01(2, 0, f) < 0.5f);
    CHECK(differ > 1800);  // about half of 4096 differ
    CHECK(differ < 2300);
    b.fill(std::get<AccessPattern>(d.prob), [](std::uint32_t, std::uint64_t) { return 1.5; });
    CHECK_THROWS_WITH(b.run(d), Catch::Contains("outside [0, 1]"));
  }
}

TEST_CASE("semantics: max8, nc_find_index8 and nc_match_replace8 make a top-k step",
          "[semantics]") {
  // NKI max8: the 8 largest per partition, descending; nc_find_index8: the index of each
  // one's first occurrence; nc_match_replace8: those occurrences replaced by imm.
  Bench b;
  const auto data_a = b.alloc(MemSpace::sbuf, DType::fp32, 4, 40);
  const auto top_a = b.alloc(MemSpace::sbuf, DType::fp32, 4, 8, 0, 512);
  const auto idx_a = b.alloc(MemSpace::sbuf, DType::uint32, 4, 8, 0, 1024);
  const auto rep_a = b.alloc(MemSpace::sbuf, DType::fp32, 4, 40, 0, 2048);
  const auto idx2_a = b.alloc(MemSpace::sbuf, DType::uint16, 4, 8, 0, 4096);
  const AccessPattern data = b.tile(data_a, 4, 40);
  // Partition p holds (j * 7 + p) % 40 for j in [0, 40): a permutation of 0..39, so the
  // top 8 are 39..32 at the indices j with (7j + p) % 40 == v; partition 3 gets a tie.
  b.fill(data, [](std::uint32_t p, std::uint64_t j) { return double((j * 7 + p) % 40); });
  b.set(data, 3, 0, 39.0f);  // partition 3: 39 twice, at 0 and where (7j + 3) % 40 == 39
  b.run(Max8{b.tile(top_a, 4, 8), data});
  for (std::uint32_t p = 0; p < 4; ++p)
    for (std::uint32_t k = 0; k < 8; ++k) {
      const float want = p == 3 ? (k < 2 ? 39.0f : 40.0f - k) : 39.0f - k;
      REQUIRE(b.get(b.tile(top_a, 4, 8), p, k) == want);
    }
  b.run(FindIndex8{b.tile(idx_a, 4, 8), data, b.tile(top_a, 4, 8)});
  auto index_of = [](std::uint32_t p, std::int64_t v) {
    for (std::int64_t j = 0; j < 40; ++j)
      if ((j * 7 + p) % 40 == v) return j;
    return std::int64_t{-1};
  };
  for (std::uint32_t p = 0; p < 3; ++p)
    for (std::uint32_t k = 0; k < 8; ++k)
      REQUIRE(b.get_int(b.tile(idx_a, 4, 8), p, k) == index_of(p, 39 - k));
  CHECK(b.get_int(b.tile(idx_a, 4, 8), 3, 0) == 0);  // the first occurrence of the tie
  CHECK(b.get_int(b.tile(idx_a, 4, 8), 3, 1) == 0);

  SECTION("match_replace8: successive occurrences for ties, indices, absent values") {
    MatchReplace8 m{b.tile(rep_a, 4, 40), data, b.tile(top_a, 4, 8), -1.0f, b.tile(idx2_a, 4, 8)};
    b.run(m);
    for (std::uint32_t p = 0; p < 4; ++p) {
      std::uint32_t replaced = 0;
      for (std::uint32_t j = 0; j < 40; ++j)
        replaced += b.get(m.dst, p, j) == -1.0f;
      CHECK(replaced == 8);
    }
    CHECK(b.get_int(*m.dst_idx, 3, 0) == 0);
    CHECK(b.get_int(*m.dst_idx, 3, 1) == index_of(3, 39));  // the tie's second occurrence
    b.set(m.vals, 0, 7, 1000.0f);                           // not in the data
    b.run(m);
    CHECK(b.get_int(*m.dst_idx, 0, 7) == 0xffff);
    // In place on data: every row is read before the first write.
    m.dst = data;
    m.dst_idx.reset();
    b.run(m);
    CHECK(b.get(data, 1, static_cast<std::uint64_t>(index_of(1, 39))) == -1.0f);
  }
}
