#pragma once
// The bit-level conversions behind isa/dtype.hpp, inline so that hot loops (engines, DMA
// casts) can call them without a function call per element. Pure integer arithmetic on
// bit patterns: no libm, no dependence on the floating-point environment, so results are
// the same on every machine. See docs/dtypes.md for the formats.
#include <array>
#include <cstdint>
#include <cstring>

namespace neuronsim::isa::dtype_bits {

inline std::uint32_t float_bits(float v) {
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
}
inline float bits_float(std::uint32_t u) {
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
}

inline constexpr std::uint32_t kFp32AbsMask = 0x7fffffffu;
inline constexpr std::uint32_t kFp32Inf = 0x7f800000u;
inline constexpr std::uint32_t kFp32QuietBit = 0x00400000u;

// Rounds away the low `kDrop` mantissa bits of an fp32 pattern to nearest even, keeping the
// result in fp32 layout (bf16 and tf32 share fp32's exponent, so only the mantissa shrinks).
// A carry out of the mantissa bumps the exponent, which is exactly right, including the
// overflow to infinity and a subnormal rounding up to the smallest normal. A NaN stays a NaN
// (its payload is truncated; if nothing of it is left, the quiet bit is set).
template <int kDrop>
inline std::uint32_t round_fp32_mantissa(std::uint32_t u) {
  constexpr std::uint32_t kLowMask = (1u << kDrop) - 1;
  if ((u & kFp32AbsMask) > kFp32Inf) {
    std::uint32_t kept = u & ~kLowMask;
    return (kept & ~0x80000000u) == kFp32Inf ? kept | kFp32QuietBit : kept;
  }
  std::uint32_t lsb = (u >> kDrop) & 1u;
  return (u + (kLowMask >> 1) + lsb) & ~kLowMask;
}

// round_fp32_mantissa on every lane of a GCC vector of uint32 (U must be such a vector; no
// branches, so it compiles to SIMD): both results are computed and the NaN test selects one, lane
// by lane. Same bits as the scalar function for every pattern
// (tests/unit/semantics_fast_paths.cpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // see base/lanes.hpp
template <int kDrop, class U>
[[gnu::always_inline]] inline U round_fp32_mantissa_lanes(U u) {
  constexpr std::uint32_t kLowMask = (1u << kDrop) - 1;
  const U kept = u & ~kLowMask;
  const U nan_result = (kept & ~0x80000000u) == kFp32Inf ? (kept | kFp32QuietBit) : kept;
  const U lsb = (u >> kDrop) & 1u;
  const U rounded = (u + (kLowMask >> 1) + lsb) & ~kLowMask;
  // |u| > inf as a signed compare (both sides are below 2^31): SSE2 has no unsigned one.
  using Signed = decltype(u < u);
  const Signed magnitude = reinterpret_cast<Signed>(u & kFp32AbsMask);
  return magnitude > static_cast<std::int32_t>(kFp32Inf) ? nan_result : rounded;
}
#pragma GCC diagnostic pop

inline std::uint16_t fp32_to_bf16_bits(float v) {
  return static_cast<std::uint16_t>(round_fp32_mantissa<16>(float_bits(v)) >> 16);
}
inline float bf16_bits_to_fp32(std::uint16_t b) {
  return bits_float(std::uint32_t{b} << 16);
}

// tf32: 1 sign, 8 exponent, 10 mantissa bits, kept in an fp32 container.
inline float round_to_tf32(float v) {
  return bits_float(round_fp32_mantissa<13>(float_bits(v)));
}

// A float format narrower than fp32 in both fields, IEEE-754 style: 1 sign bit, kExp
// exponent bits (bias 2^(kExp-1) - 1), kMan mantissa bits, subnormals, the all-ones exponent
// holding infinity (mantissa 0) and NaN (mantissa != 0). fp16, fp8 e5m2 and Trainium's fp8
// e4m3 (see docs/dtypes.md for why IEEE style) are all of this kind.
template <int kExp, int kMan>
struct IeeeNarrowFloat {
  static_assert(kExp >= 2 && kExp < 8 && kMan >= 1 && kMan < 23, "narrower than fp32");
  static constexpr int kBias = (1 << (kExp - 1)) - 1;
  static constexpr int kWidth = 1 + kExp + kMan;
  static constexpr int kDrop = 23 - kMan;  // fp32 mantissa bits that do not fit
  static constexpr std::uint32_t kSignBit = 1u << (kWidth - 1);
  static constexpr std::uint32_t kExpField = (1u << kExp) - 1;
  static constexpr std::uint32_t kManMask = (1u << kMan) - 1;
  static constexpr std::uint32_t kInf = kExpField << kMan;
  static constexpr std::uint32_t kQuietBit = 1u << (kMan - 1);
  // fp32 exponent field minus this format's: moves a normal number between the two.
  static constexpr std::uint32_t kRebias = static_cast<std::uint32_t>(127 - kBias) << 23;
  // fp32 pattern of the smallest normal of this format, 2^(1 - bias).
  static constexpr std::uint32_t kMinNormalAsFp32 = static_cast<std::uint32_t>(128 - kBias) << 23;
  // fp32 pattern of max finite + half an ulp: from here on, round-to-nearest-even gives
  // infinity (the tie goes up because max finite has an odd, all-ones mantissa).
  static constexpr std::uint32_t kOverflowAsFp32 =
      (static_cast<std::uint32_t>(kExpField - 1 - kBias + 127) << 23) | (kManMask << kDrop) |
      (1u << (kDrop - 1));

  static std::uint32_t from_fp32(float v) {
    const std::uint32_t u = float_bits(v);
    const std::uint32_t sign = (u >> 31) << (kWidth - 1);
    const std::uint32_t a = u & kFp32AbsMask;
    if (a >= kOverflowAsFp32) {
      if (a <= kFp32Inf) return sign | kInf;  // overflow or infinity in
      std::uint32_t payload = (a >> kDrop) & kManMask;
      return sign | kInf | (payload != 0 ? payload : kQuietBit);
    }
    if (a >= kMinNormalAsFp32) {  // normal result: rebias, round the dropped bits
      const std::uint32_t lsb = (a >> kDrop) & 1u;
      return sign | ((a - kRebias + ((1u << (kDrop - 1)) - 1) + lsb) >> kDrop);
    }
    // Subnormal or zero result: the value is m * 2^(e - 150) and one subnormal step is
    // 2^(1 - bias - kMan), so the result is m >> shift, rounded to nearest even. An fp32
    // subnormal (e == 0) is far below half the smallest step of any format here.
    const int e = static_cast<int>(a >> 23);
    const int shift = 151 - kBias - kMan - e;
    if (e == 0 || shift >= 25) return sign;  // below half the smallest subnormal: +-0
    const std::uint32_t m = (a & 0x7fffffu) | 0x800000u;
    const std::uint32_t lsb = (m >> shift) & 1u;
    return sign | ((m + ((1u << (shift - 1)) - 1) + lsb) >> shift);
  }

  // Exact: every value of the format is an fp32 value. NaN payloads move to the top of the
  // fp32 mantissa, so from_fp32(to_fp32_bits(b)) == b for every pattern b.
  static constexpr std::uint32_t to_fp32_bits(std::uint32_t b) {
    const std::uint32_t sign = (b & kSignBit) << (32 - kWidth);
    const std::uint32_t exp = (b >> kMan) & kExpField;
    std::uint32_t man = b & kManMask;
    if (exp == kExpField) return sign | kFp32Inf | (man << kDrop);
    if (exp != 0) return sign | ((exp + 127 - kBias) << 23) | (man << kDrop);
    if (man == 0) return sign;
    // Subnormal: normalise (a few shifts at most; subnormal inputs are rare).
    std::uint32_t fp32_exp = 128 - kBias;  // 2^(1 - bias)
    while ((man & (1u << kMan)) == 0) {
      man <<= 1;
      --fp32_exp;
    }
    return sign | (fp32_exp << 23) | ((man & kManMask) << kDrop);
  }
  static float to_fp32(std::uint32_t b) { return bits_float(to_fp32_bits(b)); }

  // The two conversions on every lane of a GCC vector of uint32 (U; each lane holds one
  // pattern), without branches so that they compile to SIMD: every case is computed and
  // selects pick one per lane. Same bits as the scalar functions for every pattern
  // (tests/unit/semantics_fast_paths.cpp).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // see base/lanes.hpp
  // One subnormal step, 2^(1 - bias - kMan): a normal fp32 for every format here.
  static constexpr float kSubnormalStep = 1.0f / static_cast<float>(1u << (kBias + kMan - 1));

  template <class U>
  [[gnu::always_inline]] static U to_fp32_bits_lanes(U b) {
    using Signed = decltype(b < b);
    using F [[gnu::vector_size(sizeof(U))]] = float;
    const U sign = (b << (32 - kWidth)) & 0x80000000u;  // shift and mask: one op with the or
    const U magnitude = b & (kSignBit - 1);
    const U normal = (magnitude << kDrop) + kRebias;
    const U special = (magnitude << kDrop) | kFp32Inf;  // infinity or NaN, payload on top
    // Subnormal: man * 2^(1 - bias - kMan). The integer converts exactly and the product is
    // a normal fp32 (or +0), so it is exact in any rounding mode, with or without
    // flush-to-zero.
    const Signed man = reinterpret_cast<Signed>(b & kManMask);
    const F scaled = __builtin_convertvector(man, F) * kSubnormalStep;
    U subnormal;
    std::memcpy(&subnormal, &scaled, sizeof subnormal);
    // Exponent field 0 or all ones, compared on the magnitude (no shift needed).
    const Signed m = reinterpret_cast<Signed>(magnitude);
    const U value = m < static_cast<std::int32_t>(1u << kMan)
                        ? subnormal
                        : (m >= static_cast<std::int32_t>(kInf) ? special : normal);
    return sign | value;
  }

  // from_fp32 lane-wise: u holds fp32 patterns, the result one pattern of this format per
  // lane.
  //
  // A subnormal (or zero) result is |v| / step rounded to an integer, nearest even: the fp32
  // addition |v| + kSubnormalMagic does that rounding (the magic number's ulp is one step,
  // and |v| < 2^(1 - bias) keeps the sum below twice the magic number), leaving the integer
  // in the sum's low mantissa bits. Unlike from_fp32 this relies on the default rounding mode
  // (nearest even), as every fp32 op the elementwise instructions compute before the cast
  // already does; flush-to-zero does not matter (the sum is normal), and denormals-are-zero
  // reads an fp32 subnormal as 0, whose result (+-0) is from_fp32's too.
  static constexpr int kMagicExp = 24 - kBias - kMan;  // kSubnormalMagic = 2^kMagicExp
  static constexpr float kSubnormalMagic =
      kMagicExp >= 0 ? static_cast<float>(1u << (kMagicExp >= 0 ? kMagicExp : 0))
                     : 1.0f / static_cast<float>(1u << (kMagicExp < 0 ? -kMagicExp : 0));
  static constexpr std::uint32_t kSubnormalMagicBits = static_cast<std::uint32_t>(kMagicExp + 127)
                                                       << 23;

  template <class U>
  [[gnu::always_inline]] static U from_fp32_lanes(U u) {
    using Signed = decltype(u < u);
    using F [[gnu::vector_size(sizeof(U))]] = float;
    const U sign = (u >> (32 - kWidth)) & kSignBit;
    const U a = u & kFp32AbsMask;
    // Below 2^31: signed compares are exact (SSE2 has no unsigned one).
    const Signed as = reinterpret_cast<Signed>(a);
    // Overflow, infinity, NaN (payload truncated; if nothing of it is left, quiet bit set).
    const U payload = (a >> kDrop) & kManMask;
    const U nan = kInf | (payload != 0 ? payload : (payload | kQuietBit));
    const U special = as > static_cast<std::int32_t>(kFp32Inf) ? nan : (U{} | kInf);
    // Normal result: rebias, round the dropped bits (lanes below kRebias wrap; not selected).
    const U lsb = (a >> kDrop) & 1u;
    const U normal = (a + (((1u << (kDrop - 1)) - 1) - kRebias) + lsb) >> kDrop;
    F magnitude;
    std::memcpy(&magnitude, &a, sizeof magnitude);
    const F sum = magnitude + kSubnormalMagic;
    U sum_bits;
    std::memcpy(&sum_bits, &sum, sizeof sum_bits);
    const U subnormal = sum_bits - kSubnormalMagicBits;
    const U value = as >= static_cast<std::int32_t>(kOverflowAsFp32)
                        ? special
                        : (as >= static_cast<std::int32_t>(kMinNormalAsFp32) ? normal : subnormal);
    return sign | value;
  }
#pragma GCC diagnostic pop
};

using Fp16Format = IeeeNarrowFloat<5, 10>;
using Fp8E5M2Format = IeeeNarrowFloat<5, 2>;
// fp8 e4m3 is the IEEE-style format (max 240, S.1111.000 = infinity, overflow -> infinity),
// not OCP e4m3fn (max 448, no infinity): the Neuron docs list nki.language.float8_e4m3 and
// float8_e4m3fn as different types, and compiler error NCC_EVRF051 says F8E4M3FN is native
// only from Trn3 on, so trn1/inf2/trn2 (NeuronCore-v2/v3) have the non-FN one. The docs do
// not say the cast saturates, so it follows the same IEEE RNE rules as fp16 and e5m2.
// Details and sources: docs/dtypes.md.
using Fp8E4M3Format = IeeeNarrowFloat<4, 3>;

// OCP fp8 E4M3FN (OCP 8-bit Floating Point Specification; nki.language.float8_e4m3fn: "no
// inf, NaN represented by 0bS111'1111"): e4m3's bias and fields, but the all-ones exponent
// is a normal binade (2^8 .. 448) and only S.1111.111 is NaN. No infinity, so what would
// round beyond 448 (|v| > 464, max + half an ulp; exactly 464 ties to the even 448), an
// infinity and a NaN all become NaN (sign kept): the OCP specification leaves overflow to the
// implementation (saturate or NaN) and the Neuron docs do not say, so neuronsim keeps e4m3's
// no-saturation rule (docs/dtypes.md).
struct Fp8E4M3FnFormat {
  static constexpr std::uint32_t kNan = 0x7f;
  static constexpr std::uint32_t kOverflowAsFp32 = 0x43e80000u;  // 464.0f
  static std::uint32_t from_fp32(float v) {
    const std::uint32_t u = float_bits(v);
    const std::uint32_t sign = (u >> 31) << 7;
    const std::uint32_t a = u & kFp32AbsMask;
    if (a > kOverflowAsFp32) return sign | kNan;  // overflow, infinity, NaN
    if (a < Fp8E4M3Format::kMinNormalAsFp32) return Fp8E4M3Format::from_fp32(v);  // subnormal
    const std::uint32_t lsb = (a >> Fp8E4M3Format::kDrop) & 1u;
    return sign | ((a - Fp8E4M3Format::kRebias + ((1u << (Fp8E4M3Format::kDrop - 1)) - 1) + lsb) >>
                   Fp8E4M3Format::kDrop);
  }
  static constexpr std::uint32_t to_fp32_bits(std::uint32_t b) {
    const std::uint32_t sign = (b & 0x80u) << 24;
    if ((b & 0x7fu) == kNan) return sign | kFp32Inf | kFp32QuietBit;
    if ((b & 0x78u) == 0x78u)  // exponent 15: 2^8 * 1.m, a number here
      return sign | ((15u + 127u - 7u) << 23) | ((b & 0x7u) << 20);
    return Fp8E4M3Format::to_fp32_bits(b);
  }
};

// OCP E8M0, the MX scale (OCP Microscaling Formats v1.0; nki.language.float8_e8m0fnu):
// unsigned, exponent only, 2^(b - 127), b = 0xFF is NaN; no zero, no sign. 2^-127 (b = 0) is
// an fp32 subnormal, exact. From fp32: to the nearest power of two, ties (1.5 * 2^e) to the
// even code, as RNE on an fp32 pattern with no mantissa bits kept; below 2^-127 (zero
// included) the smallest scale, b = 0 (as quantize_mx's all-zero group); negative, infinity,
// NaN and what rounds beyond 2^127 are NaN (docs/dtypes.md).
struct E8M0Format {
  static constexpr std::uint32_t kNan = 0xff;
  static constexpr std::uint32_t to_fp32_bits(std::uint32_t b) {
    if (b == kNan) return kFp32Inf | kFp32QuietBit;
    return b == 0 ? 0x00400000u : b << 23;
  }
  static std::uint32_t from_fp32(float v) {
    const std::uint32_t u = float_bits(v);
    if ((u >> 31) != 0 && (u & kFp32AbsMask) != 0) return kNan;  // negative (not -0)
    const std::uint32_t a = u & kFp32AbsMask;
    if (a >= kFp32Inf) return kNan;
    if (a <= 0x00600000u) return 0;  // up to 1.5 * 2^-127 (a tie, to even): the smallest
    if (a < 0x00800000u) return 1;   // the rest of the fp32 subnormals: 2^-126
    const std::uint32_t e = (a + 0x3fffffu + ((a >> 23) & 1u)) >> 23;
    return e > kNan ? kNan : e;
  }
};

// All 256 fp8 values as fp32 patterns, computed at compile time (constant-initialised, so
// safe to use from other static initialisers).
template <typename Format>
constexpr std::array<std::uint32_t, 256> make_fp8_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t b = 0; b < 256; ++b)
    table[b] = Format::to_fp32_bits(b);
  return table;
}
inline constexpr std::array<std::uint32_t, 256> kFp8E4M3ToFp32 = make_fp8_table<Fp8E4M3Format>();
inline constexpr std::array<std::uint32_t, 256> kFp8E5M2ToFp32 = make_fp8_table<Fp8E5M2Format>();
inline constexpr std::array<std::uint32_t, 256> kFp8E4M3FnToFp32 =
    make_fp8_table<Fp8E4M3FnFormat>();
inline constexpr std::array<std::uint32_t, 256> kE8M0ToFp32 = make_fp8_table<E8M0Format>();

// fp32 -> nearest integer, ties to even, for |v| < 2^63 (callers check first). Works on the
// bits so that it does not depend on the rounding mode or call libm.
inline std::int64_t round_half_even_to_int(float v) {
  const std::uint32_t u = float_bits(v);
  const int e = static_cast<int>((u >> 23) & 0xffu) - 127;  // unbiased exponent
  if (e < -1) return 0;                                     // |v| < 0.5
  const std::uint32_t m = (u & 0x7fffffu) | 0x800000u;      // v = m * 2^(e - 23)
  std::uint64_t magnitude;
  if (e >= 23) {
    magnitude = std::uint64_t{m} << (e - 23);
  } else {
    const int shift = 23 - e;  // 1 .. 24
    const std::uint32_t lsb = (m >> shift) & 1u;
    magnitude = (m + ((1u << (shift - 1)) - 1) + lsb) >> shift;
  }
  const auto s = static_cast<std::int64_t>(magnitude);
  return (u >> 31) ? -s : s;
}

// fp32 -> integer in [lo, hi]: round half to even, saturate, NaN -> 0.
inline std::int64_t fp32_to_int_saturating(float v, std::int64_t lo, std::int64_t hi) {
  const std::uint32_t a = float_bits(v) & kFp32AbsMask;
  if (a > kFp32Inf) return 0;                    // NaN
  if (a >= 0x5f000000u) return v < 0 ? lo : hi;  // |v| >= 2^63, beyond every range
  const std::int64_t r = round_half_even_to_int(v);
  return r < lo ? lo : (r > hi ? hi : r);
}

// integer -> fp32, round half to even (exact up to 2^24 in magnitude), on the bits.
inline float int_to_fp32(std::int64_t v) {
  constexpr std::int64_t kExactLimit = std::int64_t{1} << 24;
  if (v >= -kExactLimit && v <= kExactLimit) return static_cast<float>(v);  // exact
  const std::uint32_t sign = v < 0 ? 0x80000000u : 0u;
  const std::uint64_t mag =
      v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  int top = 63 - __builtin_clzll(mag);  // index of the leading one, 24 .. 63
  const int shift = top - 23;           // keep 24 significant bits
  const std::uint64_t lsb = (mag >> shift) & 1u;
  std::uint64_t kept = (mag + ((std::uint64_t{1} << (shift - 1)) - 1) + lsb) >> shift;
  if (kept == (std::uint64_t{1} << 24)) {  // rounded up to the next power of two
    kept >>= 1;
    ++top;
  }
  return bits_float(sign | (static_cast<std::uint32_t>(top + 127) << 23) |
                    (static_cast<std::uint32_t>(kept) & 0x7fffffu));
}

inline std::int64_t saturate(std::int64_t v, std::int64_t lo, std::int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

}  // namespace neuronsim::isa::dtype_bits
