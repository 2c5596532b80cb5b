#pragma once
// std::exp(float) (libm's expf) on vector lanes, giving libm's bits for every input.
//
// libm's expf is not correctly rounded, so a fast exponential of its own cannot simply
// round the true value. Instead each lane computes exp(x) in double precision to a relative
// error below 2^-45 (far below a float's 2^-24 half-ulp) and rounds it to float. Where that
// double lies more than kMidpointMargin double ulps from a float rounding midpoint, every
// evaluation with a smaller error rounds the same way, libm's included (glibc documents
// expf at 0.502 ulp: its double-precision value before the final rounding is within about
// 2^20 double ulps of the true one). Lanes closer to a midpoint (about 1 in 128) and lanes
// outside the range where the result is a normal float call std::exp itself.
// tests/unit/semantics_exp_lanes.cpp compares with std::exp densely at every vector width;
// its hidden "[.exhaustive]" case compares all 2^32 inputs (0 differences; docs/numerics.md).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/lanes.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace neuronsim::isa::exp_detail {

template <std::size_t M>
struct DoubleLanes {
  using F64 [[gnu::vector_size(M * sizeof(double))]] = double;
  using I64 [[gnu::vector_size(M * sizeof(std::int64_t))]] = std::int64_t;
};

// exp(x) = 2^k * e^r, k = round(x / ln 2), |r| <= ln 2 / 2; e^r by its Taylor series to
// r^12 (truncation below 0.347^13 / 13! = 2.1e-16 relative).
constexpr double kInvLn2 = 1.44269504088896340736;
constexpr double kLn2 = 0.693147180559945309417;
// Adding 1.5 * 2^52 rounds a double of magnitude < 2^51 to an integer (round to nearest
// even) and leaves that integer in the low mantissa bits.
constexpr double kRoundShift = 6755399441055744.0;
constexpr int kTaylorDegree = 12;
// A double's 52 mantissa bits hold a float's 23 and 29 more; the float rounding midpoint is
// the lower 29 bits at 2^28. 2^21 ulps of margin: twice glibc's documented error (above).
constexpr std::int64_t kLowBits = 29;
constexpr std::int64_t kMidpoint = std::int64_t{1} << (kLowBits - 1);
constexpr std::int64_t kMidpointMargin = std::int64_t{1} << 21;
// Inputs whose exp is a normal float (e^-87 > 2^-126, e^88.5 < FLT_MAX); below kZeroBelow
// expf is +0 (e^-104 < 2^-150, half the least subnormal), above kInfAbove +inf.
constexpr float kNormalLow = -87.0f, kNormalHigh = 88.5f;
constexpr float kZeroBelow = -104.0f, kInfAbove = 89.0f;

// 1 / i! for i = kTaylorDegree down to 0 (Horner order), in double.
struct TaylorCoefficients {
  double c[kTaylorDegree + 1];
  constexpr TaylorCoefficients() : c() {
    double factorial = 1.0;
    for (int i = 0; i <= kTaylorDegree; ++i) {
      if (i > 0) factorial *= i;
      c[kTaylorDegree - i] = 1.0 / factorial;
    }
  }
};
inline constexpr TaylorCoefficients kTaylor{};

// M floats widened to double: the float results and, per lane, whether std::exp must
// replace it (all bits set) or not (0). The masks are 32-bit lanes (64-bit compares have no
// vector form short of AVX-512 DQ, and GCC would lower them one lane at a time).
template <std::size_t M>
[[gnu::always_inline]] inline typename LaneTypes<M>::F32 exp_half(
    typename LaneTypes<M>::F32 xf, typename LaneTypes<M>::I32& redo) {
  using F = typename LaneTypes<M>::F32;
  using I32 = typename LaneTypes<M>::I32;
  using D = typename DoubleLanes<M>::F64;
  using I64 = typename DoubleLanes<M>::I64;
  const D x = __builtin_convertvector(xf, D);
  const D shift = splat_lanes<D>(kRoundShift);
  const D shifted = x * splat_lanes<D>(kInvLn2) + shift;
  const D k = shifted - shift;
  const D r = x - k * splat_lanes<D>(kLn2);
  D p = splat_lanes<D>(kTaylor.c[0]);
#pragma GCC unroll 16
  for (int i = 1; i <= kTaylorDegree; ++i)
    p = p * r + splat_lanes<D>(kTaylor.c[i]);
  // 2^k from its exponent bits (k in [-126, 128] for every lane that is kept).
  const I64 k_int = bit_cast_lanes<I64>(shifted) - bit_cast_lanes<I64>(shift);
  const D y = p * bit_cast_lanes<D>((k_int + 1023) << 52);
  // The lower 32 bits of each double hold the 29 below the float's mantissa.
  const I32 low = (__builtin_convertvector(bit_cast_lanes<I64>(y), I32) &
                   static_cast<std::int32_t>((std::int64_t{1} << kLowBits) - 1)) -
                  static_cast<std::int32_t>(kMidpoint);
  const std::int32_t margin = static_cast<std::int32_t>(kMidpointMargin);
  const I32 in_range = (xf >= splat_lanes<F>(kNormalLow)) & (xf <= splat_lanes<F>(kNormalHigh));
  redo = ~in_range | ((low < margin) & (low > -margin));
  return __builtin_convertvector(y, F);
}

// std::exp on every lane, bit for bit.
template <std::size_t N>
[[gnu::always_inline]] inline typename LaneTypes<N>::F32 exp_lanes(typename LaneTypes<N>::F32 v) {
  constexpr std::size_t kHalf = N / 2;
  using H = typename LaneTypes<kHalf>::F32;
  using HMask = typename LaneTypes<kHalf>::I32;
  float x[N], out[N];
  std::memcpy(x, &v, sizeof x);
  HMask redo[2];
#pragma GCC unroll 2
  for (std::size_t h = 0; h < 2; ++h) {
    const H xf = load_lanes<H>(x + h * kHalf);
    H y = exp_half<kHalf>(xf, redo[h]);
    // The limits without a call: +0 far below, +inf far above (NaN compares false).
    const HMask zero = xf<splat_lanes<H>(kZeroBelow), inf = xf> splat_lanes<H>(kInfAbove);
    y = zero ? H{} : y;
    y = inf ? splat_lanes<H>(HUGE_VALF) : y;
    redo[h] &= ~(zero | inf);
    store_lanes(out + h * kHalf, y);
  }
  std::uint64_t redo_words[N / 2];
  std::memcpy(redo_words, redo, sizeof redo_words);
  std::uint64_t any = 0;
  for (std::uint64_t w : redo_words)
    any |= w;
  if (any != 0) {
    std::int32_t lanes[N];
    std::memcpy(lanes, redo, sizeof lanes);
    for (std::size_t i = 0; i < N; ++i)
      if (lanes[i] != 0) out[i] = std::exp(x[i]);
  }
  return load_lanes<typename LaneTypes<N>::F32>(out);
}

}  // namespace neuronsim::isa::exp_detail

#pragma GCC diagnostic pop
