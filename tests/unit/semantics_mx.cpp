// MX quantisation and matmul (NKI quantize_mx, nc_matmul_mx): the scale rule, the rounding
// of each lane and the quadrant layout of the scales against hand-computed bit patterns, and
// the matmul against a float64 reference of the documented dequantisation.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "semantics_test_memory.hpp"

using namespace semantics_test;

namespace {

// A 32-partition bf16 source [32, 8] (two packed columns, four groups of 8 partitions per
// column), its x4 destination [32, 2] and a [4, 2] uint8 scale tile.
struct QuantizeCase {
  Bench b;
  AccessPattern src, dst, scale;
  QuantizeCase(DType packed, std::uint32_t partitions = 32, std::uint32_t scale_rows = 4) {
    src = b.tile(b.alloc(MemSpace::sbuf, DType::bf16, partitions, 8), partitions, 8);
    dst = b.tile(b.alloc(MemSpace::sbuf, packed, partitions, 2, 0, 1024), partitions, 2);
    scale = b.tile(b.alloc(MemSpace::sbuf, DType::uint8, scale_rows, 2, 0, 2048), scale_rows, 2);
  }
  // Every element of group (g, j): partitions 8g..8g+7, elements 4j..4j+3 (p0 is the
  // quadrant's first partition).
  void fill_group(std::uint32_t p0, std::uint32_t g, std::uint32_t j, float v) {
    for (std::uint32_t r = 0; r < 8; ++r)
      for (std::uint32_t i = 0; i < 4; ++i)
        b.set(src, p0 + 8 * g + r, 4 * j + i, v);
  }
  std::uint8_t lane(std::uint32_t p, std::uint32_t f) {
    return static_cast<std::uint8_t>(b.bits(dst, p, f / 4) >> (8 * (f % 4)));
  }
  void run() { b.run(QuantizeMx{dst, src, scale}); }
};

}  // namespace

TEST_CASE("semantics: quantize_mx e4m3fn scale rule and rounding", "[semantics][mx]") {
  QuantizeCase c(DType::fp8_e4m3fn_x4);
  // Column 0. Group 0: ones and one 3.0: amax 3, floor(log2 3) = 1, E_max(e4m3fn) = 8, so
  // X = 2^(1 - 7) = 2^-6, code 127 - 6 = 121; 1 / X = 64 = 0x68, 3 / X = 192 = 0x74.
  c.fill_group(0, 0, 0, 1.0f);
  c.b.set(c.src, 3, 2, 3.0f);
  // Group 1: all zero: X = 2^-127, code 0; every lane +0.
  c.fill_group(0, 1, 0, 0.0f);
  // Group 2: amax 1.09375, floor 0, X = 2^-7 (code 120): 1.0078125 * 128 = 129 -> 128
  // (0x70, steps of 16 there), 1.0625 * 128 = 136 a tie -> 128 (even), 1.09375 -> 140 -> 144.
  c.fill_group(0, 2, 0, 1.0078125f);
  c.b.set(c.src, 16, 1, 1.0625f);
  c.b.set(c.src, 17, 1, 1.09375f);
  // Group 3: +-1.984375 (bf16 1 + 127/128), X = 2^-7: 254 -> 256 (0x78; no saturation, 448 is
  // above), the negative 0xf8.
  c.fill_group(0, 3, 0, 1.984375f);
  c.b.set(c.src, 31, 0, -1.984375f);
  // Column 1: bf16 subnormals 2^-130 in every group: floor(log2) - 7 + 127 = -10 clamps to
  // code 0 (X = 2^-127): 2^-130 / 2^-127 = 0.125 = 0x20. Group 3 holds a NaN: code 0xff, NaN.
  for (std::uint32_t g = 0; g < 4; ++g)
    c.fill_group(0, g, 1, std::ldexp(1.0f, -130));
  c.b.set(c.src, 24, 5, NAN);
  c.run();

  CHECK(c.b.bits(c.scale, 0, 0) == 121);
  CHECK(c.b.bits(c.scale, 1, 0) == 0);
  CHECK(c.b.bits(c.scale, 2, 0) == 120);
  CHECK(c.b.bits(c.scale, 3, 0) == 120);
  for (std::uint32_t g = 0; g < 3; ++g)
    CHECK(c.b.bits(c.scale, g, 1) == 0);
  CHECK(c.b.bits(c.scale, 3, 1) == 0xff);

  CHECK(c.lane(0, 0) == 0x68);
  CHECK(c.lane(3, 2) == 0x74);
  CHECK(c.lane(8, 3) == 0x00);
  CHECK(c.lane(18, 0) == 0x70);
  CHECK(c.lane(16, 1) == 0x70);
  CHECK(c.lane(17, 1) == 0x71);
  CHECK(c.lane(30, 0) == 0x78);
  CHECK(c.lane(31, 0) == 0xf8);
  CHECK(c.lane(0, 4) == 0x20);
  CHECK((c.lane(25, 4) & 0x7f) == 0x7f);  // the NaN group: every value NaN
  // Packing: lane i of element j is src[p][4j + i], lane 0 the low byte.
  CHECK(c.b.bits(c.dst, 3, 0) == 0x68746868u);
}

TEST_CASE("semantics: quantize_mx e5m2 uses E_max 15", "[semantics][mx]") {
  QuantizeCase c(DType::fp8_e5m2_x4);
  for (std::uint32_t g = 0; g < 4; ++g)
    for (std::uint32_t j = 0; j < 2; ++j)
      c.fill_group(0, g, j, 1.0f);
  c.b.set(c.src, 0, 0, 3.0f);
  c.run();
  // amax 3: X = 2^(1 - 14) = 2^-13, code 114; 1 / X = 2^13 = 0x70, 3 / X = 1.5 * 2^14 = 0x76.
  // The other groups: amax 1, X = 2^-14 (code 113), 1 / X = 2^14 = 0x74.
  CHECK(c.b.bits(c.scale, 0, 0) == 114);
  CHECK(c.lane(0, 0) == 0x76);
  CHECK(c.lane(0, 1) == 0x70);
  CHECK(c.b.bits(c.scale, 1, 0) == 113);
  CHECK(c.lane(8, 0) == 0x74);
}

TEST_CASE("semantics: quantize_mx writes each quadrant's scales at its start", "[semantics][mx]") {
  // 64 partitions: two quadrants, the scale tile 64 partitions, rows 0..3 and 32..35 written
  // and the rest left as they were (0xEE bytes).
  QuantizeCase c(DType::fp8_e4m3fn_x4, 64, 64);
  for (std::uint32_t g = 0; g < 4; ++g)
    for (std::uint32_t j = 0; j < 2; ++j) {
      c.fill_group(0, g, j, 1.0f);   // X = 2^-7: code 120
      c.fill_group(32, g, j, 4.0f);  // floor(log2 4) = 2: code 122
    }
  c.run();
  for (std::uint32_t g = 0; g < 4; ++g) {
    CHECK(c.b.bits(c.scale, g, 0) == 120);
    CHECK(c.b.bits(c.scale, 32 + g, 1) == 122);
  }
  CHECK(c.b.bits(c.scale, 4, 0) == 0xee);
  CHECK(c.b.bits(c.scale, 31, 1) == 0xee);
  CHECK(c.b.bits(c.scale, 36, 0) == 0xee);
  CHECK(c.lane(63, 7) == 0x70);  // 4 / 2^-5 = 128
}

namespace {

// nc_matmul_mx of packed tiles given by their bits: stationary [K, M], moving [K, N], each
// with a [K, F] uint8 scale tile (rows at each quadrant's start).
struct MxMatmulCase {
  Bench b;
  AccessPattern st, mv, st_scale, mv_scale, dst;
  std::uint32_t k, m, n;
  MxMatmulCase(DType st_t, DType mv_t, std::uint32_t k_, std::uint32_t m_, std::uint32_t n_,
               DType out_t = DType::fp32)
      : k(k_), m(m_), n(n_) {
    st = b.tile(b.alloc(MemSpace::sbuf, st_t, k, m), k, m);
    mv = b.tile(b.alloc(MemSpace::sbuf, mv_t, k, n, 0, 4096), k, n);
    st_scale = b.tile(b.alloc(MemSpace::sbuf, DType::uint8, k, m, 0, 16384), k, m);
    mv_scale = b.tile(b.alloc(MemSpace::sbuf, DType::uint8, k, n, 0, 20480), k, n);
    dst = b.tile(b.alloc(MemSpace::psum, out_t, m, n), m, n);
  }
  MatmulMx op(AccumulateFlag acc = AccumulateFlag::single) const {
    return MatmulMx{dst, st, mv, st_scale, mv_scale, acc};
  }
  // The documented value: sum over p, i of lane_i(st[p][m]) 2^(s - 127) lane_i(mv[p][n])
  // 2^(t - 127), s and t the scales of p's group, in float64 (exact products).
  double lane_value(const AccessPattern& data, const AccessPattern& scale, std::uint32_t p,
                    std::uint32_t f, std::uint32_t i) {
    const auto bits8 = static_cast<std::uint8_t>(b.bits(data, p, f) >> (8 * i));
    const double v = lane_dtype(data.dtype) == DType::fp8_e4m3fn ? fp8e4m3fn_to_fp32(bits8)
                                                                 : fp8e5m2_to_fp32(bits8);
    const std::uint32_t row = p / 32 * 32 + p % 32 / 8;
    return std::ldexp(v, static_cast<int>(b.bits(scale, row, f)) - 127);
  }
  std::pair<double, double> want(std::uint32_t i, std::uint32_t j) {
    double s = 0, mag = 0;
    for (std::uint32_t p = 0; p < k; ++p)
      for (std::uint32_t l = 0; l < 4; ++l) {
        const double prod = lane_value(st, st_scale, p, i, l) * lane_value(mv, mv_scale, p, j, l);
        s += prod;
        mag += std::fabs(prod);
      }
    return {s, mag};
  }
};

}  // namespace

TEST_CASE("semantics: nc_matmul_mx sums four lanes per partition, exactly here",
          "[semantics][mx]") {
  MxMatmulCase c(DType::fp8_e4m3fn_x4, DType::fp8_e4m3fn_x4, 32, 2, 3);
  for (std::uint32_t p = 0; p < 32; ++p) {
    for (std::uint32_t f = 0; f < 2; ++f)
      c.b.set_bits(c.st, p, f, 0x38383838u);  // 1.0 lanes
    for (std::uint32_t f = 0; f < 3; ++f)
      c.b.set_bits(c.mv, p, f, 0x40404040u);  // 2.0 lanes
  }
  for (std::uint32_t g = 0; g < 4; ++g) {
    for (std::uint32_t f = 0; f < 2; ++f)
      c.b.set_bits(c.st_scale, g, f, 127);  // x1
    for (std::uint32_t f = 0; f < 3; ++f)
      c.b.set_bits(c.mv_scale, g, f, 128);  // x2
  }
  c.b.set_bits(c.mv_scale, 3, 2, 126);  // column 2's last group: x0.5
  c.b.run(c.op());
  // 128 contraction rows of 1 * (2 * 2) = 4: 512; column 2 has 96 rows of 4 and 32 of 1.
  CHECK(c.b.get(c.dst, 0, 0) == 512.0f);
  CHECK(c.b.get(c.dst, 1, 1) == 512.0f);
  CHECK(c.b.get(c.dst, 0, 2) == 96 * 4.0f + 32 * 1.0f);
  // middle adds to what the PSUM tile holds.
  c.b.run(c.op(AccumulateFlag::middle));
  CHECK(c.b.get(c.dst, 0, 0) == 1024.0f);
}

TEST_CASE("semantics: nc_matmul_mx against a float64 reference, mixed lane types",
          "[semantics][mx]") {
  MxMatmulCase c(DType::fp8_e5m2_x4, DType::fp8_e4m3fn_x4, 128, 16, 40);
  std::mt19937 rng(7);
  auto finite_word = [&](bool e4m3fn) {
    std::uint32_t w = 0;
    for (int i = 0; i < 4; ++i) {
      std::uint32_t byte;
      do
        byte = rng() & 0xffu;
      while (e4m3fn ? (byte & 0x7f) == 0x7f : (byte & 0x7c) == 0x7c);  // no NaN, no inf
      w |= byte << (8 * i);
    }
    return w;
  };
  for (std::uint32_t p = 0; p < c.k; ++p) {
    for (std::uint32_t f = 0; f < c.m; ++f)
      c.b.set_bits(c.st, p, f, finite_word(false));
    for (std::uint32_t f = 0; f < c.n; ++f)
      c.b.set_bits(c.mv, p, f, finite_word(true));
    for (std::uint32_t f = 0; f < c.m; ++f)
      c.b.set_bits(c.st_scale, p, f, 100 + rng() % 30);
    for (std::uint32_t f = 0; f < c.n; ++f)
      c.b.set_bits(c.mv_scale, p, f, 110 + rng() % 30);
  }
  c.b.run(c.op());
  for (std::uint32_t i = 0; i < c.m; ++i)
    for (std::uint32_t j = 0; j < c.n; ++j) {
      const auto [s, mag] = c.want(i, j);
      INFO(i << "," << j);
      // 512 fp32 additions, each rounding by at most half an ulp of the running magnitude.
      REQUIRE(std::fabs(c.b.get(c.dst, i, j) - s) <= 512 * std::ldexp(mag, -24));
    }
}
