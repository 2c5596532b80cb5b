// Tensor engine: matmul (every input dtype class, PSUM accumulation groups over K) and
// transpose, against double-precision references.
#include <catch2/catch.hpp>

#include <cmath>

#include "semantics_test_memory.hpp"

using namespace semantics_test;

namespace {

struct MatmulCase {
  Bench b;
  AccessPattern st, mv, dst;
  std::vector<double> a, x;  // stationary [K, M], moving [K, N] as stored
  std::uint32_t k, m, n;

  MatmulCase(DType in_t, DType out_t, std::uint32_t k_, std::uint32_t m_, std::uint32_t n_,
             unsigned seed)
      : k(k_), m(m_), n(n_) {
    const auto st_a = b.alloc(MemSpace::sbuf, in_t, k, m);
    const auto mv_a = b.alloc(MemSpace::sbuf, in_t, k, n, 0, 8192);
    const auto ps_a = b.alloc(MemSpace::psum, out_t, m, n);
    st = b.tile(st_a, k, m);
    mv = b.tile(mv_a, k, n);
    dst = b.tile(ps_a, m, n);
    a = b.fill_random(st, seed);
    x = b.fill_random(mv, seed + 1);
  }
  // sum_k a[k][i] * x[k][j] and the sum of |products| (the rounding-error scale).
  std::pair<double, double> want(std::uint32_t k0, std::uint32_t k1, std::uint32_t i,
                                 std::uint32_t j) const {
    double s = 0, mag = 0;
    for (std::uint32_t kk = k0; kk < k1; ++kk) {
      s += a[kk * m + i] * x[kk * n + j];
      mag += std::fabs(a[kk * m + i] * x[kk * n + j]);
    }
    return {s, mag};
  }
  Matmul op(AccumulateFlag acc, std::uint32_t k0 = 0, std::uint32_t rows = 0) const {
    Matmul mm;
    mm.dst = dst;
    mm.stationary = st;
    mm.moving = mv;
    if (rows) {
      mm.stationary.start_partition = k0;
      mm.stationary.partitions = rows;
      mm.moving.start_partition = k0;
      mm.moving.partitions = rows;
    }
    mm.acc = acc;
    return mm;
  }
};

}  // namespace

TEST_CASE("semantics: matmul of each input dtype against a float64 reference", "[semantics]") {
  for (DType t : {DType::fp32, DType::bf16, DType::fp16, DType::fp8_e4m3, DType::fp8_e5m2}) {
    INFO("inputs " << dtype_name(t));
    MatmulCase c(t, DType::fp32, 128, 64, 96, 11);
    c.b.run(c.op(AccumulateFlag::single));
    for (std::uint32_t i = 0; i < c.m; ++i)
      for (std::uint32_t j = 0; j < c.n; ++j) {
        // fp32 products added in K order: error <= K * 2^-24 * sum |products| (each of the
        // K additions and products rounds once, relative 2^-24).
        const auto [s, mag] = c.want(0, c.k, i, j);
        INFO("m " << i << " n " << j);
        REQUIRE(std::fabs(c.b.get(c.dst, i, j) - s) <= c.k * std::ldexp(mag, -23));
      }
  }
}

TEST_CASE("semantics: matmul accumulation groups first, middle, last over K", "[semantics]") {
  MatmulCase c(DType::bf16, DType::fp32, 96, 32, 48, 21);
  // PSUM holds garbage (0xEE bytes): `first` must overwrite it.
  c.b.run(c.op(AccumulateFlag::first, 0, 32));
  for (std::uint32_t i = 0; i < c.m; ++i) {
    const auto [s, mag] = c.want(0, 32, i, 5);
    REQUIRE(std::fabs(c.b.get(c.dst, i, 5) - s) <= 32 * std::ldexp(mag, -23));
  }
  c.b.run(c.op(AccumulateFlag::middle, 32, 32));
  c.b.run(c.op(AccumulateFlag::last, 64, 32));
  for (std::uint32_t i = 0; i < c.m; ++i)
    for (std::uint32_t j = 0; j < c.n; ++j) {
      const auto [s, mag] = c.want(0, 96, i, j);
      REQUIRE(std::fabs(c.b.get(c.dst, i, j) - s) <= 96 * std::ldexp(mag, -23));
    }
  // A group of three partial sums equals adding the three partial matmuls in fp32.
  MatmulCase d(DType::bf16, DType::fp32, 96, 32, 48, 21);
  std::vector<float> parts[3];
  for (int g = 0; g < 3; ++g) {
    d.b.run(d.op(AccumulateFlag::single, 32 * g, 32));
    for (std::uint32_t i = 0; i < d.m; ++i)
      for (std::uint32_t j = 0; j < d.n; ++j)
        parts[g].push_back(d.b.get(d.dst, i, j));
  }
  for (std::uint32_t i = 0; i < d.m; ++i)
    for (std::uint32_t j = 0; j < d.n; ++j) {
      const std::size_t e = i * d.n + j;
      REQUIRE(c.b.get(c.dst, i, j) == (parts[0][e] + parts[1][e]) + parts[2][e]);
    }
}

TEST_CASE("semantics: matmul single into a bf16 PSUM tile rounds once at the end", "[semantics]") {
  MatmulCase c(DType::bf16, DType::bf16, 64, 16, 32, 31);
  c.b.run(c.op(AccumulateFlag::single));
  const Tol tol = dtype_tol(DType::bf16);
  for (std::uint32_t i = 0; i < c.m; ++i)
    for (std::uint32_t j = 0; j < c.n; ++j) {
      const auto [s, mag] = c.want(0, c.k, i, j);
      REQUIRE(std::fabs(c.b.get(c.dst, i, j) - s) <=
              tol.rel * std::fabs(s) + c.k * std::ldexp(mag, -23));
    }
}

TEST_CASE("semantics: matmul with strided multi-dim stationary and moving patterns",
          "[semantics]") {
  // Stationary: every other column of a [K, 2M] tile; moving: [K, 2 x 8] read as N = 16.
  Bench b;
  const auto st_a = b.alloc(MemSpace::sbuf, DType::fp32, 16, 8);
  const auto mv_a = b.alloc(MemSpace::sbuf, DType::fp32, 16, 16, 0, 1024);
  const auto ps_a = b.alloc(MemSpace::psum, DType::fp32, 4, 16);
  const AccessPattern st_full = b.tile(st_a, 16, 8);
  const AccessPattern mv = b.pattern(MemSpace::sbuf, mv_a, DType::fp32, 16, {{8, 2}, {1, 8}});
  const auto a = b.fill_random(st_full, 41);
  const auto x = b.fill_random(mv, 42);
  Matmul mm;
  mm.stationary = b.pattern(MemSpace::sbuf, st_a, DType::fp32, 16, {{2, 4}});
  mm.moving = mv;
  mm.dst = b.tile(ps_a, 4, 16);
  b.run(mm);
  for (std::uint32_t i = 0; i < 4; ++i)
    for (std::uint32_t j = 0; j < 16; ++j) {
      double s = 0, mag = 0;
      for (std::uint32_t k = 0; k < 16; ++k) {
        s += a[k * 8 + 2 * i] * x[k * 16 + j];
        mag += std::fabs(a[k * 8 + 2 * i] * x[k * 16 + j]);
      }
      REQUIRE(std::fabs(b.get(mm.dst, i, j) - s) <= 16 * std::ldexp(mag, -23));
    }
}

TEST_CASE("semantics: matmul perf_mode double_row contracts over two rows per partition",
          "[semantics]") {
  // Trainium2 guide, Double FP8 Matmul: stationary [K, 2, M], moving [K, 2, N], dst[m][n] =
  // sum over k and r of st[k][r][m] * mv[k][r][n] (a 2K contraction).
  for (DType t : {DType::fp8_e4m3, DType::fp8_e5m2}) {
    INFO("inputs " << dtype_name(t));
    const std::uint32_t k = 32, m = 8, n = 24;
    Bench b;
    const auto st_a = b.alloc(MemSpace::sbuf, t, k, 2 * m);
    const auto mv_a = b.alloc(MemSpace::sbuf, t, k, 2 * n, 0, 1024);
    const auto ps_a = b.alloc(MemSpace::psum, DType::fp32, m, n);
    Matmul mm;
    mm.stationary =
        b.pattern(MemSpace::sbuf, st_a, t, k, {{static_cast<std::int32_t>(m), 2}, {1, m}});
    mm.moving = b.pattern(MemSpace::sbuf, mv_a, t, k, {{static_cast<std::int32_t>(n), 2}, {1, n}});
    mm.dst = b.tile(ps_a, m, n);
    mm.perf_mode = MatmulPerfMode::double_row;
    const auto a = b.fill_random(mm.stationary, 51);
    const auto x = b.fill_random(mm.moving, 52);
    b.run(mm);
    for (std::uint32_t i = 0; i < m; ++i)
      for (std::uint32_t j = 0; j < n; ++j) {
        double s = 0, mag = 0;
        for (std::uint32_t kk = 0; kk < k; ++kk)
          for (std::uint32_t r = 0; r < 2; ++r) {
            const double prod = a[kk * 2 * m + r * m + i] * x[kk * 2 * n + r * n + j];
            s += prod;
            mag += std::fabs(prod);
          }
        INFO("m " << i << " n " << j);
        REQUIRE(std::fabs(b.get(mm.dst, i, j) - s) <= 2 * k * std::ldexp(mag, -23));
      }
  }
}

TEST_CASE("semantics: transpose copies values exactly, including in place", "[semantics]") {
  SECTION("tensor engine, SBUF bf16 to PSUM fp32") {
    Bench b;
    const auto s_a = b.alloc(MemSpace::sbuf, DType::bf16, 128, 64);
    const auto d_a = b.alloc(MemSpace::psum, DType::fp32, 64, 128);
    Transpose tr;
    tr.src = b.tile(s_a, 128, 64);
    tr.dst = b.tile(d_a, 64, 128);
    const auto x = b.fill_random(tr.src, 51);
    b.run(tr);
    for (std::uint32_t p = 0; p < 128; ++p)
      for (std::uint32_t f = 0; f < 64; ++f)
        REQUIRE(b.get(tr.dst, f, p) == x[p * 64 + f]);
  }
  SECTION("vector engine 32x32 in place, raw bits kept") {
    Bench b;
    const auto a = b.alloc(MemSpace::sbuf, DType::fp32, 32, 32);
    Transpose tr;
    tr.src = b.tile(a, 32, 32);
    tr.dst = tr.src;
    for (std::uint32_t p = 0; p < 32; ++p)
      for (std::uint32_t f = 0; f < 32; ++f)
        b.set_bits(tr.src, p, f, 0x7FC00000u + p * 32 + f);
    b.run(tr);
    for (std::uint32_t p = 0; p < 32; ++p)
      for (std::uint32_t f = 0; f < 32; ++f)
        REQUIRE(b.bits(tr.dst, f, p) == 0x7FC00000u + p * 32 + f);
  }
  SECTION("int32 values beyond 2^24 move exactly") {
    Bench b;
    const auto s_a = b.alloc(MemSpace::sbuf, DType::int32, 4, 8);
    const auto d_a = b.alloc(MemSpace::sbuf, DType::int32, 8, 4, 0, 256);
    Transpose tr;
    tr.src = b.tile(s_a, 4, 8);
    tr.dst = b.tile(d_a, 8, 4);
    for (std::uint32_t p = 0; p < 4; ++p)
      for (std::uint32_t f = 0; f < 8; ++f)
        b.set_int(tr.src, p, f, 16777217 + p * 8 + f);
    b.run(tr);
    for (std::uint32_t p = 0; p < 4; ++p)
      for (std::uint32_t f = 0; f < 8; ++f)
        REQUIRE(b.get_int(tr.dst, f, p) == 16777217 + p * 8 + f);
  }
}

TEST_CASE("semantics: matmul and transpose reject mismatched shapes", "[semantics]") {
  MatmulCase c(DType::bf16, DType::fp32, 32, 16, 8, 61);
  Matmul mm = c.op(AccumulateFlag::single);
  mm.moving.partitions = 16;
  CHECK_THROWS_WITH(c.b.run(mm), Catch::Contains("moving") && Catch::Contains("K"));
  mm = c.op(AccumulateFlag::single);
  mm.dst.dims[0].size = 9;
  CHECK_THROWS_WITH(c.b.run(mm), Catch::Contains("dst") && Catch::Contains("[16, 8]"));
  Transpose tr;
  tr.src = c.st;
  tr.dst = c.st;
  CHECK_THROWS_AS(c.b.run(tr), neuronsim::Error);
}
