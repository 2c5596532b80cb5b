// Named edge cases of each float format: halfway cases, max finite and overflow, subnormals
// both ways, signed zero, infinities; and a cross-check of fp16 against the compiler's own
// _Float16 conversion.
#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstring>

#include "dtype_reference.hpp"
#include "isa/dtype.hpp"

using namespace neuronsim::isa;
using neuronsim::isa::dtype_test::bits_of;
using neuronsim::isa::dtype_test::float_of;

TEST_CASE("dtype: bf16 halfway cases round to even", "[dtype]") {
  // 1 + 2^-8 is halfway between bf16 0x3f80 (1.0) and 0x3f81.
  CHECK(fp32_to_bf16(float_of(0x3f808000)) == 0x3f80);  // tie, 0x3f80 is even
  CHECK(fp32_to_bf16(float_of(0x3f807fff)) == 0x3f80);  // just below
  CHECK(fp32_to_bf16(float_of(0x3f808001)) == 0x3f81);  // just above
  CHECK(fp32_to_bf16(float_of(0x3f818000)) == 0x3f82);  // tie, 0x3f81 is odd
  CHECK(fp32_to_bf16(float_of(0xbf818000)) == 0xbf82);  // same for negatives
  CHECK(fp32_to_bf16(1.0f) == 0x3f80);
}

TEST_CASE("dtype: bf16 overflow, infinities, zeros and subnormals", "[dtype]") {
  CHECK(fp32_to_bf16(float_of(0x7f7f7fff)) == 0x7f7f);  // below max + half ulp: max finite
  CHECK(fp32_to_bf16(float_of(0x7f7f8000)) == 0x7f80);  // max + half ulp: inf (tie, odd max)
  CHECK(fp32_to_bf16(FLT_MAX) == 0x7f80);
  CHECK(fp32_to_bf16(-FLT_MAX) == 0xff80);
  CHECK(fp32_to_bf16(HUGE_VALF) == 0x7f80);
  CHECK(fp32_to_bf16(-HUGE_VALF) == 0xff80);
  CHECK(fp32_to_bf16(0.0f) == 0x0000);
  CHECK(fp32_to_bf16(-0.0f) == 0x8000);
  // fp32 subnormals in, bf16 subnormals out (same exponent range as fp32).
  CHECK(fp32_to_bf16(float_of(0x00000001)) == 0x0000);
  CHECK(fp32_to_bf16(float_of(0x80000001)) == 0x8000);
  CHECK(fp32_to_bf16(float_of(0x00008000)) == 0x0000);  // tie to even 0
  CHECK(fp32_to_bf16(float_of(0x00008001)) == 0x0001);
  CHECK(fp32_to_bf16(float_of(0x00018000)) == 0x0002);  // tie to even 2
  CHECK(fp32_to_bf16(float_of(0x007fffff)) == 0x0080);  // rounds up to the smallest normal
  CHECK(bf16_to_fp32(0x0001) == std::ldexp(1.0f, -133));
  CHECK(std::isinf(bf16_to_fp32(0x7f80)));
  CHECK(std::isnan(bf16_to_fp32(0x7fc0)));
  CHECK(std::isnan(bf16_to_fp32(0xff81)));
}

TEST_CASE("dtype: fp16 halfway cases round to even", "[dtype]") {
  CHECK(fp32_to_fp16(2049.0f) == fp32_to_fp16(2048.0f));  // spacing 2 here: 2048 is even
  CHECK(fp32_to_fp16(2051.0f) == fp32_to_fp16(2052.0f));  // 2050 is odd: up
  CHECK(fp32_to_fp16(std::nextafter(2049.0f, 0.0f)) == 0x6800);
  CHECK(fp32_to_fp16(std::nextafter(2049.0f, 3000.0f)) == 0x6801);
  CHECK(fp32_to_fp16(1.0f + std::ldexp(1.0f, -11)) == 0x3c00);      // tie at 1 + half ulp
  CHECK(fp32_to_fp16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3c02);  // tie above odd 0x3c01
  CHECK(fp32_to_fp16(-1.0f - 3 * std::ldexp(1.0f, -11)) == 0xbc02);
}

TEST_CASE("dtype: fp16 max finite, overflow and infinities", "[dtype]") {
  CHECK(fp32_to_fp16(65504.0f) == 0x7bff);
  CHECK(fp16_to_fp32(0x7bff) == 65504.0f);
  CHECK(fp32_to_fp16(std::nextafter(65520.0f, 0.0f)) == 0x7bff);  // just below max + half ulp
  CHECK(fp32_to_fp16(65520.0f) == 0x7c00);  // max + half ulp: tie, odd max -> inf
  CHECK(fp32_to_fp16(-65520.0f) == 0xfc00);
  CHECK(fp32_to_fp16(1e6f) == 0x7c00);
  CHECK(fp32_to_fp16(FLT_MAX) == 0x7c00);
  CHECK(fp32_to_fp16(HUGE_VALF) == 0x7c00);
  CHECK(fp32_to_fp16(-HUGE_VALF) == 0xfc00);
  CHECK(fp16_to_fp32(0x7c00) == HUGE_VALF);
  CHECK(fp16_to_fp32(0xfc00) == -HUGE_VALF);
  CHECK(std::isnan(fp16_to_fp32(0x7e00)));
  CHECK(std::isnan(fp16_to_fp32(0x7c01)));
}

TEST_CASE("dtype: fp16 subnormals both ways and signed zero", "[dtype]") {
  const float min_subnormal = std::ldexp(1.0f, -24);
  CHECK(fp16_to_fp32(0x0001) == min_subnormal);
  CHECK(fp16_to_fp32(0x03ff) == 1023 * min_subnormal);
  CHECK(fp16_to_fp32(0x0400) == std::ldexp(1.0f, -14));  // smallest normal
  CHECK(fp32_to_fp16(min_subnormal) == 0x0001);
  CHECK(fp32_to_fp16(min_subnormal / 2) == 0x0000);  // tie to even 0
  CHECK(fp32_to_fp16(std::nextafter(min_subnormal / 2, 1.0f)) == 0x0001);
  CHECK(fp32_to_fp16(3 * min_subnormal / 2) == 0x0002);                      // tie above odd 1
  CHECK(fp32_to_fp16(std::ldexp(1.0f, -14) - min_subnormal / 2) == 0x0400);  // up to normal
  CHECK(fp32_to_fp16(-min_subnormal / 4) == 0x8000);
  CHECK(fp32_to_fp16(float_of(0x00000001)) == 0x0000);  // fp32 subnormal: far too small
  CHECK(fp32_to_fp16(float_of(0x807fffff)) == 0x8000);
  CHECK(fp32_to_fp16(-0.0f) == 0x8000);
  CHECK(std::signbit(fp16_to_fp32(0x8000)));
}

TEST_CASE("dtype: fp8 e4m3 is the IEEE-style format: max 240, infinity, NaN", "[dtype]") {
  CHECK(fp32_to_fp8e4m3(1.0f) == 0x38);
  CHECK(fp8e4m3_to_fp32(0x77) == 240.0f);  // max finite S.1110.111
  CHECK(fp8e4m3_to_fp32(0x78) == HUGE_VALF);
  CHECK(fp8e4m3_to_fp32(0xf8) == -HUGE_VALF);
  for (int nan = 0x79; nan <= 0x7f; ++nan)
    CHECK(std::isnan(fp8e4m3_to_fp32(static_cast<std::uint8_t>(nan))));
  CHECK(std::isnan(fp8e4m3_to_fp32(0xff)));
  CHECK(fp32_to_fp8e4m3(240.0f) == 0x77);
  CHECK(fp32_to_fp8e4m3(std::nextafter(248.0f, 0.0f)) == 0x77);
  CHECK(fp32_to_fp8e4m3(248.0f) == 0x78);  // max + half ulp: inf
  CHECK(fp32_to_fp8e4m3(-248.0f) == 0xf8);
  CHECK(fp32_to_fp8e4m3(448.0f) == 0x78);  // e4m3fn's max is out of range here
  CHECK(fp32_to_fp8e4m3(HUGE_VALF) == 0x78);
  CHECK(fp32_to_fp8e4m3(-HUGE_VALF) == 0xf8);
  CHECK((fp32_to_fp8e4m3(NAN) & 0x7f) > 0x78);
  CHECK(fp32_to_fp8e4m3(17.0f) == 0x58);  // tie between 16 (0x58) and 18 (0x59): even
  CHECK(fp32_to_fp8e4m3(19.0f) == 0x5a);  // tie between 18 (odd) and 20
  CHECK(fp32_to_fp8e4m3(-0.0f) == 0x80);
}

TEST_CASE("dtype: fp8 e4m3 subnormals both ways", "[dtype]") {
  const float min_subnormal = std::ldexp(1.0f, -9);
  CHECK(fp8e4m3_to_fp32(0x01) == min_subnormal);
  CHECK(fp8e4m3_to_fp32(0x07) == 7 * min_subnormal);
  CHECK(fp8e4m3_to_fp32(0x08) == std::ldexp(1.0f, -6));  // smallest normal
  CHECK(fp32_to_fp8e4m3(min_subnormal) == 0x01);
  CHECK(fp32_to_fp8e4m3(min_subnormal / 2) == 0x00);  // tie to even 0
  CHECK(fp32_to_fp8e4m3(std::nextafter(min_subnormal / 2, 1.0f)) == 0x01);
  CHECK(fp32_to_fp8e4m3(3 * min_subnormal / 2) == 0x02);
  CHECK(fp32_to_fp8e4m3(15 * min_subnormal / 2) == 0x08);  // tie between 7 (odd) and normal
  CHECK(fp32_to_fp8e4m3(-min_subnormal) == 0x81);
  CHECK(fp32_to_fp8e4m3(float_of(0x00000001)) == 0x00);
}

TEST_CASE("dtype: fp8 e5m2 max 57344, overflow, subnormals", "[dtype]") {
  CHECK(fp32_to_fp8e5m2(1.0f) == 0x3c);
  CHECK(fp8e5m2_to_fp32(0x7b) == 57344.0f);
  CHECK(fp8e5m2_to_fp32(0x7c) == HUGE_VALF);
  for (int nan = 0x7d; nan <= 0x7f; ++nan)
    CHECK(std::isnan(fp8e5m2_to_fp32(static_cast<std::uint8_t>(nan))));
  CHECK(fp32_to_fp8e5m2(std::nextafter(61440.0f, 0.0f)) == 0x7b);
  CHECK(fp32_to_fp8e5m2(61440.0f) == 0x7c);  // max + half ulp: inf
  CHECK(fp32_to_fp8e5m2(-1e9f) == 0xfc);
  CHECK(fp32_to_fp8e5m2(-HUGE_VALF) == 0xfc);
  const float min_subnormal = std::ldexp(1.0f, -16);
  CHECK(fp8e5m2_to_fp32(0x01) == min_subnormal);
  CHECK(fp8e5m2_to_fp32(0x04) == std::ldexp(1.0f, -14));
  CHECK(fp32_to_fp8e5m2(min_subnormal / 2) == 0x00);
  CHECK(fp32_to_fp8e5m2(3 * min_subnormal / 2) == 0x02);
  CHECK(fp32_to_fp8e5m2(-0.0f) == 0x80);
  CHECK(fp32_to_fp8e5m2(4.5f) == 0x44);  // tie between 4 (0x44) and 5 (0x45): even
  CHECK(fp32_to_fp8e5m2(5.5f) == 0x46);  // tie between 5 (odd) and 6
}

TEST_CASE("dtype: fp16 agrees with the compiler's _Float16 conversion", "[dtype]") {
#ifdef __FLT16_MAX__
  std::size_t mismatches = 0, checked = 0;
  std::uint32_t first_bad = 0;
  auto check = [&](std::uint32_t u) {
    const float x = float_of(u);
    const auto h = static_cast<_Float16>(x);
    std::uint16_t want;
    std::memcpy(&want, &h, sizeof want);
    const std::uint16_t got = fp32_to_fp16(x);
    const bool ok = std::isnan(x) ? (got & 0x7fff) > 0x7c00 : got == want;
    if (!ok && mismatches++ == 0) first_bad = u;
    ++checked;
  };
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 997)
    check(static_cast<std::uint32_t>(u));
  // Dense where fp16 lives (2^-28 to 2^17): for every fp16-sized upper part, the fp32
  // numbers exactly on, just off and exactly halfway to the next fp16 step (13 dropped bits).
  for (std::uint32_t upper = 0x32000000u >> 13; upper <= (0x48000000u >> 13); ++upper)
    for (std::uint32_t dropped : {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu}) {
      check((upper << 13) | dropped);
      check(0x80000000u | (upper << 13) | dropped);
    }
  INFO(checked << " inputs, first mismatch at fp32 0x" << std::hex << first_bad);
  CHECK(mismatches == 0);
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    _Float16 h;
    std::memcpy(&h, &bits, sizeof h);
    const float want = static_cast<float>(h);
    if (std::isnan(want)) continue;
    if (bits_of(fp16_to_fp32(bits)) != bits_of(want)) FAIL_CHECK("fp16 0x" << std::hex << b);
  }
#else
  WARN("the compiler has no _Float16: cross-check skipped");
#endif
}
