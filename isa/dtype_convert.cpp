// Conversions between fp32 and every element type, and the memory load/store of one element.
// The arithmetic lives in isa/dtype_bits.hpp; this file picks it per dtype.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "base/error.hpp"
#include "isa/dtype.hpp"
#include "isa/dtype_bits.hpp"

namespace neuronsim::isa {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "elements are stored little-endian and copied with memcpy: a little-endian host "
              "is assumed");

namespace bits = dtype_bits;

float bf16_to_fp32(std::uint16_t b) {
  return bits::bf16_bits_to_fp32(b);
}
std::uint16_t fp32_to_bf16(float v) {
  return bits::fp32_to_bf16_bits(v);
}

float fp16_to_fp32(std::uint16_t b) {
  return bits::Fp16Format::to_fp32(b);
}
std::uint16_t fp32_to_fp16(float v) {
  return static_cast<std::uint16_t>(bits::Fp16Format::from_fp32(v));
}

float fp8e4m3_to_fp32(std::uint8_t b) {
  return bits::bits_float(bits::kFp8E4M3ToFp32[b]);
}
std::uint8_t fp32_to_fp8e4m3(float v) {
  return static_cast<std::uint8_t>(bits::Fp8E4M3Format::from_fp32(v));
}

float fp8e5m2_to_fp32(std::uint8_t b) {
  return bits::bits_float(bits::kFp8E5M2ToFp32[b]);
}
std::uint8_t fp32_to_fp8e5m2(float v) {
  return static_cast<std::uint8_t>(bits::Fp8E5M2Format::from_fp32(v));
}

float fp8e4m3fn_to_fp32(std::uint8_t b) {
  return bits::bits_float(bits::kFp8E4M3FnToFp32[b]);
}
std::uint8_t fp32_to_fp8e4m3fn(float v) {
  return static_cast<std::uint8_t>(bits::Fp8E4M3FnFormat::from_fp32(v));
}

float e8m0_to_fp32(std::uint8_t b) {
  return bits::bits_float(bits::kE8M0ToFp32[b]);
}
std::uint8_t fp32_to_e8m0(float v) {
  return static_cast<std::uint8_t>(bits::E8M0Format::from_fp32(v));
}

float fp32_to_tf32(float v) {
  return bits::round_to_tf32(v);
}

namespace {
// OCP Microscaling formats v1.0, FP4 E2M1: the magnitudes of codes 0-7 (bit 3 the sign).
constexpr float kFp4E2M1Magnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
}  // namespace

float fp4e2m1_to_fp32(std::uint8_t b) {
  const float m = kFp4E2M1Magnitudes[b & 7u];
  return (b & 8u) ? -m : m;
}

std::uint8_t fp32_to_fp4e2m1(float v) {
  if (v != v) return 7;  // NaN: no NaN in E2M1; saturated as an overflow is
  const std::uint8_t sign = (bits::float_bits(v) >> 31) ? 8 : 0;
  const float a = v < 0 ? -v : v;
  std::uint8_t code = 7;  // beyond 5 (the midpoint of 4 and 6): 6, saturating
  for (std::uint8_t c = 0; c < 7; ++c) {
    // Midpoints are exact in fp32; a tie goes to the even code (round half to even).
    const float mid = (kFp4E2M1Magnitudes[c] + kFp4E2M1Magnitudes[c + 1]) / 2;
    if (a < mid || (a == mid && c % 2 == 0)) {
      code = c;
      break;
    }
  }
  return static_cast<std::uint8_t>(sign | code);
}

namespace {

template <typename T>
T load_raw(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void store_raw(T v, void* p) {
  std::memcpy(p, &v, sizeof v);
}

// fp32 -> integer type T: round half to even, saturate, NaN -> 0.
template <typename T>
void store_fp32_as_int(float v, void* p) {
  store_raw(static_cast<T>(bits::fp32_to_int_saturating(v, std::numeric_limits<T>::min(),
                                                        std::numeric_limits<T>::max())),
            p);
}
template <typename T>
void store_int_saturating(std::int64_t v, void* p) {
  store_raw(static_cast<T>(
                bits::saturate(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max())),
            p);
}

[[noreturn]] void throw_packed(DType t, const char* what) {
  throw Error(std::string("dtype: ") + what + ": " + std::string(dtype_name(t)) +
              " packs four fp8 values in one element and has no single value");
}

[[noreturn]] void throw_invalid(DType t, const char* what) {
  throw Error(std::string("dtype: ") + what + ": invalid data type code " +
              std::to_string(static_cast<unsigned>(t)));
}

}  // namespace

float load_fp32(DType t, const void* p) {
  switch (t) {
    case DType::fp32:
      return load_raw<float>(p);
    case DType::tf32:  // a stored tf32 already has 10 mantissa bits; rounding keeps it so
      return bits::round_to_tf32(load_raw<float>(p));
    case DType::bf16:
      return bits::bf16_bits_to_fp32(load_raw<std::uint16_t>(p));
    case DType::fp16:
      return bits::Fp16Format::to_fp32(load_raw<std::uint16_t>(p));
    case DType::fp8_e4m3:
      return bits::bits_float(bits::kFp8E4M3ToFp32[load_raw<std::uint8_t>(p)]);
    case DType::fp8_e5m2:
      return bits::bits_float(bits::kFp8E5M2ToFp32[load_raw<std::uint8_t>(p)]);
    case DType::int8:
      return load_raw<std::int8_t>(p);
    case DType::int16:
      return load_raw<std::int16_t>(p);
    case DType::int32:
      return bits::int_to_fp32(load_raw<std::int32_t>(p));
    case DType::uint8:
      return load_raw<std::uint8_t>(p);
    case DType::uint16:
      return load_raw<std::uint16_t>(p);
    case DType::uint32:
      return bits::int_to_fp32(load_raw<std::uint32_t>(p));
    case DType::fp8_e4m3fn:
      return bits::bits_float(bits::kFp8E4M3FnToFp32[load_raw<std::uint8_t>(p)]);
    case DType::fp8_e8m0:
      return bits::bits_float(bits::kE8M0ToFp32[load_raw<std::uint8_t>(p)]);
    case DType::fp8_e5m2_x4:
    case DType::fp8_e4m3fn_x4:
    case DType::fp4_e2m1fn_x4:
      throw_packed(t, "load_fp32");
  }
  throw_invalid(t, "load_fp32");
}

void store_fp32(DType t, float v, void* p) {
  switch (t) {
    case DType::fp32:
      return store_raw(v, p);
    case DType::tf32:
      return store_raw(bits::round_to_tf32(v), p);
    case DType::bf16:
      return store_raw(bits::fp32_to_bf16_bits(v), p);
    case DType::fp16:
      return store_raw(static_cast<std::uint16_t>(bits::Fp16Format::from_fp32(v)), p);
    case DType::fp8_e4m3:
      return store_raw(static_cast<std::uint8_t>(bits::Fp8E4M3Format::from_fp32(v)), p);
    case DType::fp8_e5m2:
      return store_raw(static_cast<std::uint8_t>(bits::Fp8E5M2Format::from_fp32(v)), p);
    case DType::int8:
      return store_fp32_as_int<std::int8_t>(v, p);
    case DType::int16:
      return store_fp32_as_int<std::int16_t>(v, p);
    case DType::int32:
      return store_fp32_as_int<std::int32_t>(v, p);
    case DType::uint8:
      return store_fp32_as_int<std::uint8_t>(v, p);
    case DType::uint16:
      return store_fp32_as_int<std::uint16_t>(v, p);
    case DType::uint32:
      return store_fp32_as_int<std::uint32_t>(v, p);
    case DType::fp8_e4m3fn:
      return store_raw(static_cast<std::uint8_t>(bits::Fp8E4M3FnFormat::from_fp32(v)), p);
    case DType::fp8_e8m0:
      return store_raw(static_cast<std::uint8_t>(bits::E8M0Format::from_fp32(v)), p);
    case DType::fp8_e5m2_x4:
    case DType::fp8_e4m3fn_x4:
    case DType::fp4_e2m1fn_x4:
      throw_packed(t, "store_fp32");
  }
  throw_invalid(t, "store_fp32");
}

std::int64_t load_int(DType t, const void* p) {
  switch (t) {
    case DType::int8:
      return load_raw<std::int8_t>(p);
    case DType::int16:
      return load_raw<std::int16_t>(p);
    case DType::int32:
      return load_raw<std::int32_t>(p);
    case DType::uint8:
      return load_raw<std::uint8_t>(p);
    case DType::uint16:
      return load_raw<std::uint16_t>(p);
    case DType::uint32:
      return load_raw<std::uint32_t>(p);
    case DType::fp32:
    case DType::tf32:
    case DType::bf16:
    case DType::fp16:
    case DType::fp8_e4m3:
    case DType::fp8_e5m2:
    case DType::fp8_e4m3fn:
    case DType::fp8_e8m0:  // through fp32: round half to even, saturate, NaN -> 0
      return bits::fp32_to_int_saturating(load_fp32(t, p), std::numeric_limits<std::int64_t>::min(),
                                          std::numeric_limits<std::int64_t>::max());
    case DType::fp8_e5m2_x4:
    case DType::fp8_e4m3fn_x4:
    case DType::fp4_e2m1fn_x4:
      throw_packed(t, "load_int");
  }
  throw_invalid(t, "load_int");
}

void store_int(DType t, std::int64_t v, void* p) {
  switch (t) {
    case DType::int8:
      return store_int_saturating<std::int8_t>(v, p);
    case DType::int16:
      return store_int_saturating<std::int16_t>(v, p);
    case DType::int32:
      return store_int_saturating<std::int32_t>(v, p);
    case DType::uint8:
      return store_int_saturating<std::uint8_t>(v, p);
    case DType::uint16:
      return store_int_saturating<std::uint16_t>(v, p);
    case DType::uint32:
      return store_int_saturating<std::uint32_t>(v, p);
    case DType::fp32:
    case DType::tf32:
    case DType::bf16:
    case DType::fp16:
    case DType::fp8_e4m3:
    case DType::fp8_e5m2:
    case DType::fp8_e4m3fn:
    case DType::fp8_e8m0:  // through fp32, each step rounding to nearest even
      return store_fp32(t, bits::int_to_fp32(v), p);
    case DType::fp8_e5m2_x4:
    case DType::fp8_e4m3fn_x4:
    case DType::fp4_e2m1fn_x4:
      throw_packed(t, "store_int");
  }
  throw_invalid(t, "store_int");
}

}  // namespace neuronsim::isa
