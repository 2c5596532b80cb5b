// Loading and storing one element of each type: byte layout, integer rounding and
// saturation, NaN to integers, tf32 rounding, and the exact integer path.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "dtype_reference.hpp"
#include "isa/dtype.hpp"

using namespace neuronsim::isa;
using neuronsim::isa::dtype_test::bits_of;
using neuronsim::isa::dtype_test::float_of;

namespace {

constexpr DType kAllTypes[] = {DType::fp32,     DType::tf32,     DType::bf16,   DType::fp16,
                               DType::fp8_e4m3, DType::fp8_e5m2, DType::int8,   DType::int16,
                               DType::int32,    DType::uint8,    DType::uint16, DType::uint32};

// Stores v as type t and loads it back as fp32.
float through(DType t, float v) {
  std::array<std::uint8_t, 8> buf{};
  store_fp32(t, v, buf.data());
  return load_fp32(t, buf.data());
}
std::int64_t int_through(DType t, std::int64_t v) {
  std::array<std::uint8_t, 8> buf{};
  store_int(t, v, buf.data());
  return load_int(t, buf.data());
}

}  // namespace

TEST_CASE("dtype: store writes the little-endian element and nothing beyond it", "[dtype]") {
  struct Case {
    DType type;
    float value;
    std::array<std::uint8_t, 4> bytes;
  };
  const Case cases[] = {
      {DType::fp32, 1.0f, {0x00, 0x00, 0x80, 0x3f}},
      {DType::tf32, 1.0f, {0x00, 0x00, 0x80, 0x3f}},
      {DType::bf16, 1.0f, {0x80, 0x3f}},
      {DType::fp16, 1.0f, {0x00, 0x3c}},
      {DType::fp8_e4m3, 1.0f, {0x38}},
      {DType::fp8_e5m2, 1.0f, {0x3c}},
      {DType::int8, -2.0f, {0xfe}},
      {DType::int16, -2.0f, {0xfe, 0xff}},
      {DType::int32, 258.0f, {0x02, 0x01, 0x00, 0x00}},
      {DType::uint8, 200.0f, {0xc8}},
      {DType::uint16, 513.0f, {0x01, 0x02}},
      {DType::uint32, 65536.0f, {0x00, 0x00, 0x01, 0x00}},
  };
  for (const Case& c : cases) {
    INFO(dtype_name(c.type));
    std::array<std::uint8_t, 7> buf;
    buf.fill(0xaa);
    store_fp32(c.type, c.value, buf.data() + 1);  // unaligned on purpose
    const std::size_t n = dtype_size(c.type);
    CHECK(buf[0] == 0xaa);
    for (std::size_t i = 0; i < n; ++i)
      CHECK(buf[1 + i] == c.bytes[i]);
    for (std::size_t i = 1 + n; i < buf.size(); ++i)
      CHECK(buf[i] == 0xaa);
    CHECK(load_fp32(c.type, buf.data() + 1) == c.value);
  }
}

TEST_CASE("dtype: every type holds small integers exactly", "[dtype]") {
  for (DType t : kAllTypes) {
    INFO(dtype_name(t));
    const int hi = t == DType::fp8_e5m2 ? 8 : 16;  // e5m2 has 3 significant bits
    const int lo = is_integer(t) && !is_signed_integer(t) ? 0 : -hi;
    for (int i = lo; i <= hi; ++i) {
      CHECK(through(t, static_cast<float>(i)) == static_cast<float>(i));
      CHECK(int_through(t, i) == i);
    }
  }
}

TEST_CASE("dtype: fp32 to integers rounds half to even", "[dtype]") {
  for (DType t : {DType::int8, DType::int16, DType::int32}) {
    INFO(dtype_name(t));
    CHECK(through(t, 0.5f) == 0);
    CHECK(through(t, 1.5f) == 2);
    CHECK(through(t, 2.5f) == 2);
    CHECK(through(t, -0.5f) == 0);
    CHECK_FALSE(std::signbit(through(t, -0.5f)));  // an integer has no -0
    CHECK(through(t, -1.5f) == -2);
    CHECK(through(t, -2.5f) == -2);
    CHECK(through(t, std::nextafter(0.5f, 1.0f)) == 1);
    CHECK(through(t, std::nextafter(0.5f, 0.0f)) == 0);
    CHECK(through(t, std::nextafter(2.5f, 3.0f)) == 3);
    CHECK(through(t, -0.0f) == 0);
    CHECK(through(t, float_of(0x00000001)) == 0);  // subnormal
  }
  CHECK(through(DType::int32, 8388607.5f) == 8388608);  // 2^23 - 0.5: tie, up to even
  CHECK(through(DType::int32, 8388606.5f) == 8388606);
  CHECK(through(DType::int32, 16777216.0f) == 16777216);
  CHECK(through(DType::uint8, 254.5f) == 254);
  CHECK(through(DType::uint8, 253.5f) == 254);
}

TEST_CASE("dtype: fp32 to integers saturates and sends NaN to 0", "[dtype]") {
  struct Range {
    DType type;
    double lo, hi;
  };
  const Range ranges[] = {
      {DType::int8, -128, 127},
      {DType::int16, -32768, 32767},
      {DType::int32, -2147483648.0, 2147483647.0},
      {DType::uint8, 0, 255},
      {DType::uint16, 0, 65535},
      {DType::uint32, 0, 4294967295.0},
  };
  for (const Range& r : ranges) {
    INFO(dtype_name(r.type));
    std::array<std::uint8_t, 4> buf{};
    auto stored = [&](float v) {
      store_fp32(r.type, v, buf.data());
      return load_int(r.type, buf.data());
    };
    const auto lo = static_cast<std::int64_t>(r.lo), hi = static_cast<std::int64_t>(r.hi);
    CHECK(stored(HUGE_VALF) == hi);
    CHECK(stored(-HUGE_VALF) == lo);
    CHECK(stored(1e30f) == hi);
    CHECK(stored(-1e30f) == lo);
    CHECK(stored(static_cast<float>(r.hi) + 0.5f) == hi);
    CHECK(stored(static_cast<float>(r.lo) - 0.5f) == lo);
    CHECK(stored(NAN) == 0);
    CHECK(stored(-NAN) == 0);
  }
  std::array<std::uint8_t, 4> buf{};
  store_fp32(DType::int8, 127.5f, buf.data());  // rounds to 128, then saturates
  CHECK(load_int(DType::int8, buf.data()) == 127);
  store_fp32(DType::int8, -128.5f, buf.data());  // tie to even -128, in range
  CHECK(load_int(DType::int8, buf.data()) == -128);
  store_fp32(DType::uint8, -0.5f, buf.data());
  CHECK(load_int(DType::uint8, buf.data()) == 0);
  store_fp32(DType::int32, 2147483648.0f, buf.data());  // 2^31
  CHECK(load_int(DType::int32, buf.data()) == 2147483647);
  store_fp32(DType::int32, -2147483648.0f, buf.data());
  CHECK(load_int(DType::int32, buf.data()) == -2147483648LL);
  store_fp32(DType::uint32, 4294967040.0f, buf.data());  // largest fp32 below 2^32
  CHECK(load_int(DType::uint32, buf.data()) == 4294967040LL);
  store_fp32(DType::uint32, 4294967296.0f, buf.data());
  CHECK(load_int(DType::uint32, buf.data()) == 4294967295LL);
}

TEST_CASE("dtype: wide integers load into fp32 rounding to nearest even", "[dtype]") {
  std::array<std::uint8_t, 4> buf{};
  auto as_fp32 = [&](DType t, std::int64_t v) {
    store_int(t, v, buf.data());
    return load_fp32(t, buf.data());
  };
  CHECK(as_fp32(DType::int32, 16777217) == 16777216.0f);  // tie: even
  CHECK(as_fp32(DType::int32, 16777219) == 16777220.0f);  // tie: even
  CHECK(as_fp32(DType::int32, 16777218) == 16777218.0f);
  CHECK(as_fp32(DType::int32, -16777217) == -16777216.0f);
  CHECK(as_fp32(DType::int32, 2147483647) == 2147483648.0f);
  CHECK(as_fp32(DType::int32, -2147483647 - 1) == -2147483648.0f);
  CHECK(as_fp32(DType::uint32, 4294967295LL) == 4294967296.0f);
  CHECK(as_fp32(DType::uint32, 4294967167LL) == 4294967040.0f);  // just below the tie
  CHECK(as_fp32(DType::uint32, 4294967168LL) == 4294967296.0f);  // tie: up to even 2^32
}

TEST_CASE("dtype: store_int and load_int are exact and saturate on integer types", "[dtype]") {
  CHECK(int_through(DType::int8, 127) == 127);
  CHECK(int_through(DType::int8, 128) == 127);
  CHECK(int_through(DType::int8, -128) == -128);
  CHECK(int_through(DType::int8, -300) == -128);
  CHECK(int_through(DType::int16, 40000) == 32767);
  CHECK(int_through(DType::int16, -40000) == -32768);
  CHECK(int_through(DType::int32, std::numeric_limits<std::int64_t>::min()) == -2147483648LL);
  CHECK(int_through(DType::int32, 2147483647) == 2147483647);
  CHECK(int_through(DType::int32, 16777217) == 16777217);  // exact, unlike through fp32
  CHECK(int_through(DType::uint8, 255) == 255);
  CHECK(int_through(DType::uint8, 256) == 255);
  CHECK(int_through(DType::uint8, -5) == 0);
  CHECK(int_through(DType::uint16, 65535) == 65535);
  CHECK(int_through(DType::uint32, 4294967295LL) == 4294967295LL);
  CHECK(int_through(DType::uint32, std::int64_t{1} << 40) == 4294967295LL);
  CHECK(int_through(DType::uint32, -1) == 0);
  const std::uint8_t all_ones[4] = {0xff, 0xff, 0xff, 0xff};
  CHECK(load_int(DType::int8, all_ones) == -1);
  CHECK(load_int(DType::uint8, all_ones) == 255);
  CHECK(load_int(DType::int16, all_ones) == -1);
  CHECK(load_int(DType::uint16, all_ones) == 65535);
  CHECK(load_int(DType::int32, all_ones) == -1);
  CHECK(load_int(DType::uint32, all_ones) == 4294967295LL);
}

TEST_CASE("dtype: integers on float types go through fp32", "[dtype]") {
  CHECK(int_through(DType::fp32, 16777217) == 16777216);  // fp32 rounds, tie to even
  CHECK(int_through(DType::fp32, 10000000000LL) == 10000000000LL);
  CHECK(int_through(DType::bf16, 257) == 256);  // 8 significant bits: tie, even 256
  CHECK(int_through(DType::bf16, 259) == 260);
  CHECK(int_through(DType::fp16, 2049) == 2048);
  CHECK(int_through(DType::fp8_e4m3, 17) == 16);
  CHECK(int_through(DType::fp8_e4m3, 1000) == std::numeric_limits<std::int64_t>::max());  // inf
  CHECK(int_through(DType::fp8_e4m3, -1000) == std::numeric_limits<std::int64_t>::min());
  CHECK(int_through(DType::fp16, 70000) == std::numeric_limits<std::int64_t>::max());
  CHECK(int_through(DType::fp32, std::numeric_limits<std::int64_t>::max()) ==
        std::numeric_limits<std::int64_t>::max());  // 2^63 saturates back
  CHECK(int_through(DType::fp32, std::numeric_limits<std::int64_t>::min()) ==
        std::numeric_limits<std::int64_t>::min());  // -2^63 is exact
  std::array<std::uint8_t, 4> buf{};
  store_fp32(DType::fp32, 2.5f, buf.data());
  CHECK(load_int(DType::fp32, buf.data()) == 2);
  store_fp32(DType::fp32, -3.5f, buf.data());
  CHECK(load_int(DType::fp32, buf.data()) == -4);
  store_fp32(DType::fp16, NAN, buf.data());
  CHECK(load_int(DType::fp16, buf.data()) == 0);
  store_fp32(DType::bf16, 1e30f, buf.data());
  CHECK(load_int(DType::bf16, buf.data()) == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("dtype: tf32 rounds the mantissa to 10 bits, to nearest even", "[dtype]") {
  const float ulp = std::ldexp(1.0f, -10);                                  // tf32 spacing at 1
  CHECK(fp32_to_tf32(1.0f + ulp / 2) == 1.0f);                              // tie: even
  CHECK(fp32_to_tf32(std::nextafter(1.0f + ulp / 2, 2.0f)) == 1.0f + ulp);  // above
  CHECK(fp32_to_tf32(std::nextafter(1.0f + ulp / 2, 0.0f)) == 1.0f);        // below
  CHECK(fp32_to_tf32(1.0f + 3 * ulp / 2) == 1.0f + 2 * ulp);                // tie above odd
  CHECK(fp32_to_tf32(-1.0f - 3 * ulp / 2) == -1.0f - 2 * ulp);
  CHECK(fp32_to_tf32(1.0f + ulp) == 1.0f + ulp);
  CHECK(bits_of(fp32_to_tf32(-0.0f)) == 0x80000000u);
  CHECK(fp32_to_tf32(HUGE_VALF) == HUGE_VALF);
  CHECK(fp32_to_tf32(std::numeric_limits<float>::max()) == HUGE_VALF);  // past max + half ulp
  CHECK(bits_of(fp32_to_tf32(float_of(0x7f7fefff))) == 0x7f7fe000u);    // below: max finite
  CHECK(std::isnan(fp32_to_tf32(NAN)));
  CHECK(std::isnan(fp32_to_tf32(float_of(0x7f800001))));     // payload only in dropped bits
  CHECK(bits_of(fp32_to_tf32(float_of(0x00001000))) == 0u);  // subnormal tie: even 0
  CHECK(bits_of(fp32_to_tf32(float_of(0x00001001))) == 0x00002000u);
  CHECK(bits_of(fp32_to_tf32(float_of(0x007ff000))) == 0x00800000u);  // up to normal
  // A sweep: the result has 10 mantissa bits and is a nearest one.
  std::size_t bad = 0;
  for (std::uint64_t u = 0; u <= 0xffffffffu; u += 65521) {
    const float x = float_of(static_cast<std::uint32_t>(u));
    const float r = fp32_to_tf32(x);
    if (std::isnan(x) || std::isinf(r)) continue;
    const std::uint32_t rb = bits_of(r);
    const double step = std::ldexp(1.0, std::max(static_cast<int>((rb >> 23) & 0xff), 1) - 137);
    bad += (rb & 0x1fffu) != 0 || std::fabs(static_cast<double>(x) - r) > step / 2;
  }
  CHECK(bad == 0);
  CHECK(through(DType::tf32, 1.0f + ulp / 4) == 1.0f);  // stored rounded
}

TEST_CASE("dtype: load_fp32 of every fp8, bf16 and fp16 pattern equals the scalar decode",
          "[dtype]") {
  for (std::uint32_t b = 0; b < 256; ++b) {
    const auto byte = static_cast<std::uint8_t>(b);
    CHECK(bits_of(load_fp32(DType::fp8_e4m3, &byte)) == bits_of(fp8e4m3_to_fp32(byte)));
    CHECK(bits_of(load_fp32(DType::fp8_e5m2, &byte)) == bits_of(fp8e5m2_to_fp32(byte)));
  }
  std::size_t bad = 0;
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const std::uint8_t le[2] = {static_cast<std::uint8_t>(b), static_cast<std::uint8_t>(b >> 8)};
    const auto half = static_cast<std::uint16_t>(b);
    bad += bits_of(load_fp32(DType::bf16, le)) != bits_of(bf16_to_fp32(half));
    bad += bits_of(load_fp32(DType::fp16, le)) != bits_of(fp16_to_fp32(half));
  }
  CHECK(bad == 0);
}
