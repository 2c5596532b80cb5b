// bn_stats + bn_aggr against a two-pass float64 mean and variance.
#include <catch2/catch.hpp>

#include <cmath>

#include "semantics_test_memory.hpp"

using namespace semantics_test;

namespace {

struct Moments {
  double count = 0, mean = 0, m2 = 0;
};
// Two passes in double over x[first], x[first + step], ...
Moments two_pass(const std::vector<double>& x, std::size_t begin, std::size_t end,
                 std::size_t step) {
  Moments m;
  double sum = 0;
  for (std::size_t i = begin; i < end; i += step) {
    sum += x[i];
    m.count += 1;
  }
  m.mean = m.count > 0 ? sum / m.count : 0;
  for (std::size_t i = begin; i < end; i += step)
    m.m2 += (x[i] - m.mean) * (x[i] - m.mean);
  return m;
}

}  // namespace

TEST_CASE("semantics: bn_stats gives count, mean, M2 of even then odd elements", "[semantics]") {
  for (std::uint32_t f : {1u, 2u, 7u, 512u}) {
    INFO("free " << f);
    Bench b;
    const auto s_a = b.alloc(MemSpace::sbuf, DType::bf16, 128, f);
    const auto d_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 6, 0, 2048);
    BnStats bn;
    bn.src = b.tile(s_a, 128, f);
    bn.dst = b.tile(d_a, 128, 6);
    const auto x = b.fill_random(bn.src, 1000, 3.0, 5.0);  // an offset mean
    b.run(bn);
    for (std::uint32_t p = 0; p < 128; ++p)
      for (std::size_t parity = 0; parity < 2; ++parity) {
        const Moments m = two_pass(x, p * f + parity, (p + 1) * f, 2);
        CHECK(b.get(bn.dst, p, 3 * parity) == m.count);
        // fp32 sums of n terms: relative n * 2^-23 (2x slack over the textbook bound).
        REQUIRE(close(b.get(bn.dst, p, 3 * parity + 1), m.mean, f * std::ldexp(1.0, -23)));
        REQUIRE(close(b.get(bn.dst, p, 3 * parity + 2), m.m2, f * std::ldexp(1.0, -22), 1e-6));
      }
  }
}

TEST_CASE("semantics: bn_stats then bn_aggr match a two-pass mean and variance", "[semantics]") {
  // 1536 elements per partition in three bn_stats chunks of 512, aggregated.
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 1536);
  const auto st_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 18, 0, 8192);
  const auto mv_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 2, 0, 8192 + 18 * 4);
  const AccessPattern src = b.tile(s_a, 128, 1536);
  const auto x = b.fill_random(src, 1001, -1.0, 7.0);
  for (std::uint32_t chunk = 0; chunk < 3; ++chunk) {
    BnStats bn;
    bn.src = b.pattern(MemSpace::sbuf, s_a, DType::fp32, 128, {{1, 512}}, 0, chunk * 512 * 4);
    bn.dst = b.pattern(MemSpace::sbuf, st_a, DType::fp32, 128, {{1, 6}}, 0, chunk * 6 * 4);
    b.run(bn);
  }
  BnAggr ag;
  ag.src = b.tile(st_a, 128, 18);
  ag.dst = b.tile(mv_a, 128, 2);
  b.run(ag);
  for (std::uint32_t p = 0; p < 128; ++p) {
    const Moments m = two_pass(x, p * 1536, (p + 1) * 1536, 1);
    INFO("p " << p);
    REQUIRE(close(b.get(ag.dst, p, 0), m.mean, 1e-5));
    REQUIRE(close(b.get(ag.dst, p, 1), m.m2 / m.count, 1e-5));
  }
}

TEST_CASE("semantics: bn_aggr skips empty groups and checks its shapes", "[semantics]") {
  Bench b;
  const auto s_a = b.alloc(MemSpace::sbuf, DType::fp32, 1, 6);
  const auto d_a = b.alloc(MemSpace::sbuf, DType::fp32, 1, 2, 0, 64);
  BnAggr ag;
  ag.src = b.tile(s_a, 1, 6);
  ag.dst = b.tile(d_a, 1, 2);
  const float triples[] = {1, 4.5f, 0, 0, 0, 0};  // bn_stats of one element: odd half empty
  for (int i = 0; i < 6; ++i)
    b.set(ag.src, 0, i, triples[i]);
  b.run(ag);
  CHECK(b.get(ag.dst, 0, 0) == 4.5f);
  CHECK(b.get(ag.dst, 0, 1) == 0.0f);
  ag.src = b.tile(s_a, 1, 5);
  CHECK_THROWS_WITH(b.run(ag), Catch::Contains("triples"));
  BnStats bn;
  bn.src = b.tile(s_a, 1, 6);
  bn.dst = b.tile(d_a, 1, 2);
  CHECK_THROWS_WITH(b.run(bn), Catch::Contains("must be [1, 6]"));
}
