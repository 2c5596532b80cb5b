// The MX formats of NeuronCore-v4 (docs/dtypes.md): OCP fp8 E4M3FN (max 448, no infinity,
// S.1111.111 NaN), the E8M0 scale (2^(b - 127), 0xFF NaN), and the packed x4 types, which
// have no single value. Every value is a hand-computed bit pattern.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "base/error.hpp"
#include "isa/dtype.hpp"

using namespace neuronsim::isa;

TEST_CASE("dtype: fp8 e4m3fn has max 448, no infinity, one NaN per sign", "[dtype][mx]") {
  CHECK(fp32_to_fp8e4m3fn(1.0f) == 0x38);    // exponent 7 = bias, mantissa 0
  CHECK(fp8e4m3fn_to_fp32(0x78) == 256.0f);  // S.1111.000: a number here, 2^8
  CHECK(fp8e4m3fn_to_fp32(0x7e) == 448.0f);  // S.1111.110 = 1.75 * 2^8, max finite
  CHECK(fp8e4m3fn_to_fp32(0xfe) == -448.0f);
  CHECK(std::isnan(fp8e4m3fn_to_fp32(0x7f)));  // S.1111.111: the only NaN
  CHECK(std::isnan(fp8e4m3fn_to_fp32(0xff)));
  CHECK(fp8e4m3fn_to_fp32(0x01) == std::ldexp(1.0f, -9));  // smallest subnormal, as e4m3's
  CHECK(fp8e4m3fn_to_fp32(0x08) == std::ldexp(1.0f, -6));  // smallest normal
  // Rounding to nearest even: 17 lies between 16 (0x58) and 18 (0x59), 19 between 18 and 20.
  CHECK(fp32_to_fp8e4m3fn(17.0f) == 0x58);
  CHECK(fp32_to_fp8e4m3fn(19.0f) == 0x5a);
  CHECK(fp32_to_fp8e4m3fn(300.0f) == 0x79);  // 288 (0x79) and 320 (0x7a): 300 nearer 288
  CHECK(fp32_to_fp8e4m3fn(440.0f) == 0x7e);  // between 416 and 448, nearer 448
}

TEST_CASE("dtype: fp8 e4m3fn overflow is NaN, not saturation", "[dtype][mx]") {
  // 448 + half an ulp (32 / 2) = 464 is a tie between 448 (even mantissa 110) and 480 (which
  // would be the NaN pattern): it goes to 448; anything above is NaN, sign kept.
  CHECK(fp32_to_fp8e4m3fn(464.0f) == 0x7e);
  CHECK(fp32_to_fp8e4m3fn(-464.0f) == 0xfe);
  CHECK(fp32_to_fp8e4m3fn(std::nextafter(464.0f, 1000.0f)) == 0x7f);
  CHECK(fp32_to_fp8e4m3fn(-1e6f) == 0xff);
  CHECK(fp32_to_fp8e4m3fn(HUGE_VALF) == 0x7f);
  CHECK(fp32_to_fp8e4m3fn(-HUGE_VALF) == 0xff);
  CHECK((fp32_to_fp8e4m3fn(NAN) & 0x7f) == 0x7f);
  CHECK(fp32_to_fp8e4m3fn(-0.0f) == 0x80);
  CHECK(fp32_to_fp8e4m3fn(std::ldexp(1.0f, -10)) == 0x00);  // half the smallest step: tie to 0
  CHECK(fp32_to_fp8e4m3fn(std::ldexp(3.0f, -11)) == 0x01);  // 0.75 steps: up
}

TEST_CASE("dtype: every fp8 e4m3fn pattern but NaN survives the round trip", "[dtype][mx]") {
  for (int b = 0; b < 256; ++b) {
    INFO(b);
    const float v = fp8e4m3fn_to_fp32(static_cast<std::uint8_t>(b));
    if ((b & 0x7f) == 0x7f) {
      CHECK(std::isnan(v));
      continue;
    }
    CHECK(fp32_to_fp8e4m3fn(v) == b);
    std::uint8_t stored = 0;
    store_fp32(DType::fp8_e4m3fn, v, &stored);
    CHECK(stored == b);
    CHECK(load_fp32(DType::fp8_e4m3fn, &stored) == v);
  }
}

TEST_CASE("dtype: e8m0 is 2^(b - 127), 0xFF NaN, rounded to the nearest power of two",
          "[dtype][mx]") {
  CHECK(e8m0_to_fp32(127) == 1.0f);
  CHECK(e8m0_to_fp32(0) == std::ldexp(1.0f, -127));  // an fp32 subnormal, exact
  CHECK(e8m0_to_fp32(1) == std::ldexp(1.0f, -126));
  CHECK(e8m0_to_fp32(254) == std::ldexp(1.0f, 127));
  CHECK(std::isnan(e8m0_to_fp32(255)));
  for (int b = 0; b < 255; ++b)
    CHECK(fp32_to_e8m0(e8m0_to_fp32(static_cast<std::uint8_t>(b))) == b);
  CHECK(fp32_to_e8m0(1.4f) == 127);  // below 1.5: down to 1
  CHECK(fp32_to_e8m0(1.6f) == 128);  // above 1.5: up to 2
  CHECK(fp32_to_e8m0(1.5f) == 128);  // the tie 1.5 * 2^0 goes to the even code, 128
  CHECK(fp32_to_e8m0(3.0f) == 128);  // the tie 1.5 * 2^1: 128 (2) is even, 129 is not
  CHECK(fp32_to_e8m0(0.0f) == 0);    // no zero: the smallest scale
  CHECK(fp32_to_e8m0(-0.0f) == 0);
  CHECK(fp32_to_e8m0(-1.0f) == 255);  // no sign: NaN
  CHECK(fp32_to_e8m0(HUGE_VALF) == 255);
  CHECK(fp32_to_e8m0(NAN) == 255);
  CHECK(fp32_to_e8m0(std::ldexp(1.5f, 127)) == 254);   // a tie: the even code 254
  CHECK(fp32_to_e8m0(std::ldexp(1.75f, 127)) == 255);  // rounds beyond 2^127
}

TEST_CASE("dtype: a packed x4 type has no fp32 or integer value", "[dtype][mx]") {
  const std::uint32_t word = 0x3c383c38u;
  for (DType t : {DType::fp8_e5m2_x4, DType::fp8_e4m3fn_x4}) {
    INFO(dtype_name(t));
    CHECK(dtype_size(t) == 4);
    CHECK_THROWS_AS(load_fp32(t, &word), neuronsim::Error);
    CHECK_THROWS_AS(load_int(t, &word), neuronsim::Error);
    std::uint32_t out = 0;
    CHECK_THROWS_AS(store_fp32(t, 1.0f, &out), neuronsim::Error);
    CHECK_THROWS_AS(store_int(t, 1, &out), neuronsim::Error);
  }
}

TEST_CASE("dtype: OCP fp4 E2M1, the lanes of fp4_e2m1fn_x4", "[dtype]") {
  // OCP Microscaling formats v1.0, FP4 E2M1: codes 0-7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6;
  // bit 3 the sign; no infinity or NaN.
  const float magnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (std::uint8_t c = 0; c < 16; ++c) {
    const float v = fp4e2m1_to_fp32(c);
    CHECK(v == ((c & 8) ? -magnitudes[c & 7] : magnitudes[c & 7]));
    CHECK(fp32_to_fp4e2m1(v) == (c == 8 ? 8 : c));  // -0 keeps its sign
  }
  // Nearest, ties to the even code: 0.25 -> 0, 0.75 -> 1 (code 2), 1.25 -> 1, 1.75 -> 2,
  // 2.5 -> 2, 3.5 -> 4, 5 -> 4; past 5 saturating at 6, NaN to 6.
  CHECK(fp32_to_fp4e2m1(0.25f) == 0);
  CHECK(fp32_to_fp4e2m1(0.26f) == 1);
  CHECK(fp32_to_fp4e2m1(0.75f) == 2);
  CHECK(fp32_to_fp4e2m1(1.25f) == 2);
  CHECK(fp32_to_fp4e2m1(1.75f) == 4);
  CHECK(fp32_to_fp4e2m1(2.5f) == 4);
  CHECK(fp32_to_fp4e2m1(3.5f) == 6);
  CHECK(fp32_to_fp4e2m1(5.0f) == 6);
  CHECK(fp32_to_fp4e2m1(5.01f) == 7);
  CHECK(fp32_to_fp4e2m1(1e30f) == 7);
  CHECK(fp32_to_fp4e2m1(-1e30f) == 15);
  CHECK(fp32_to_fp4e2m1(std::numeric_limits<float>::quiet_NaN()) == 7);
  CHECK(dtype_size(DType::fp4_e2m1fn_x4) == 2);
}
