#include "io/box_muller.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/host_simd.hpp"
#include "base/lanes.hpp"

// Vector values stay inside this file's loops (base/lanes.hpp).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace neuronsim::io {

// Compiled for the baseline (no FMA to contract into), as every pair was before the lanes.
void box_muller_scalar(const double* u1, const double* u2, std::size_t pairs, double mean,
                       double std_dev, float* values) {
  for (std::size_t p = 0; p < pairs; ++p) {
    const double r = std::sqrt(-2.0 * std::log(u1[p]));
    const double theta = kTwoPi * u2[p];
    values[2 * p] = static_cast<float>(mean + std_dev * (r * std::cos(theta)));
    values[2 * p + 1] = static_cast<float>(mean + std_dev * (r * std::sin(theta)));
  }
}

namespace {

template <std::size_t M>
struct Lanes {
  using F64 [[gnu::vector_size(M * sizeof(double))]] = double;
  using I64 [[gnu::vector_size(M * sizeof(std::int64_t))]] = std::int64_t;
  using U64 [[gnu::vector_size(M * sizeof(std::uint64_t))]] = std::uint64_t;
  using F32 = typename LaneTypes<M>::F32;
};

// Adding 1.5 * 2^52 rounds a double of magnitude < 2^51 to an integer (to nearest even)
// and leaves it in the low mantissa bits; subtracting it back gives the integer as a double.
constexpr double kRoundShift = 6755399441055744.0;
constexpr double kLn2 = 0.693147180559945309417;
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kTwoOverPi = 0.63661977236758134308;
// pi / 2 as three doubles: the first two of 30 significant bits, so k * each is exact for the
// quadrant k <= 4, the third the rest rounded (pi/2 to about 113 bits).
constexpr double kHalfPi1 = 0x1.921fb54p+0, kHalfPi2 = 0x1.10b46118p-30,
                 kHalfPi3 = 0x1.313198a2e037p-61;
// Bound of the two doubles' distance from the exact value, relative (box_muller.hpp).
constexpr double kErrorBound = 0x1p-40;
// Floats are normal from 2^-126 and finite below 2^128 (range checked on |v| < 2^127).
constexpr double kFloatMin = 0x1p-126, kFloatTop = 0x1p127;

// Degrees: the first omitted term of each series is below 2^-50 of the sum on its interval.
// log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716 for m in [sqrt(1/2), sqrt(2)):
// sum over i <= 8 of 2 s^(2i+1) / (2i+1). sin y and cos y for |y| <= pi/4: Taylor to y^15
// and y^16.
constexpr int kAtanhTerms = 9, kSinTerms = 8, kCosTerms = 9;

template <int Terms, class Coefficient>
struct Series {
  double c[Terms];
  constexpr explicit Series(Coefficient coefficient) : c() {
    for (int i = 0; i < Terms; ++i)
      c[i] = coefficient(i);
  }
};
constexpr double factorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; ++i)
    f *= i;
  return f;
}
// Coefficient of s^(2i+1) / s of atanh's series (times 2); of y^(2i+1) / y for sin, y^(2i)
// for cos, with their signs.
constexpr auto kAtanh =
    Series<kAtanhTerms, double (*)(int)>(+[](int i) { return 2.0 / (2 * i + 1); });
constexpr auto kSin = Series<kSinTerms, double (*)(int)>(
    +[](int i) { return (i % 2 == 0 ? 1.0 : -1.0) / factorial(2 * i + 1); });
constexpr auto kCos = Series<kCosTerms, double (*)(int)>(
    +[](int i) { return (i % 2 == 0 ? 1.0 : -1.0) / factorial(2 * i); });

// p(z) = c[0] + c[1] z + ... by Horner's rule.
template <class D, int Terms>
[[gnu::always_inline]] inline D horner(const double (&c)[Terms], D z) {
  D p = splat_lanes<D>(c[Terms - 1]);
#pragma GCC unroll 16
  for (int i = Terms - 2; i >= 0; --i)
    p = p * z + splat_lanes<D>(c[i]);
  return p;
}

// log(u) for normal positive u: u = 2^e m, m in [sqrt(1/2), sqrt(2)).
template <std::size_t M>
[[gnu::always_inline]] inline typename Lanes<M>::F64 log_lanes(typename Lanes<M>::F64 u) {
  using D = typename Lanes<M>::F64;
  using I = typename Lanes<M>::I64;
  const I bits = bit_cast_lanes<I>(u);
  // Logical shifts: AVX2 has no 64-bit arithmetic one (u is positive anyway).
  const I exponent_field = bit_cast_lanes<I>(bit_cast_lanes<typename Lanes<M>::U64>(bits) >> 52);
  D m = bit_cast_lanes<D>((bits & ((std::int64_t{1} << 52) - 1)) | (std::int64_t{1023} << 52));
  const I high = m >= splat_lanes<D>(2.0 * kSqrtHalf);
  m = high ? m * 0.5 : m;
  // e as a double without an int64 conversion instruction (AVX-512 DQ): through the shift.
  const I e = exponent_field - 1023 - high;  // high is -1 where m was halved
  const D shift = splat_lanes<D>(kRoundShift);
  const D e_double = bit_cast_lanes<D>(bit_cast_lanes<I>(shift) + e) - shift;
  const D f = m - 1.0;
  const D s = f / (f + 2.0);
  return e_double * kLn2 + s * horner(kAtanh.c, s * s);
}

// cos(theta) and sin(theta) for theta in [0, 2 pi].
template <std::size_t M>
[[gnu::always_inline]] inline void sincos_lanes(typename Lanes<M>::F64 theta,
                                                typename Lanes<M>::F64& c,
                                                typename Lanes<M>::F64& s) {
  using D = typename Lanes<M>::F64;
  using I = typename Lanes<M>::I64;
  const D shift = splat_lanes<D>(kRoundShift);
  const D k = (theta * kTwoOverPi + shift) - shift;
  const D y = ((theta - k * kHalfPi1) - k * kHalfPi2) - k * kHalfPi3;
  const D y2 = y * y;
  const D sin_y = y * horner(kSin.c, y2), cos_y = horner(kCos.c, y2);
  // Quadrant k mod 4 (k in 0..4, 4 being 0 again).
  const I odd = (k == 1.0) | (k == 3.0);
  const I c_negative = (k == 1.0) | (k == 2.0), s_negative = (k == 2.0) | (k == 3.0);
  const D c_abs = odd ? sin_y : cos_y, s_abs = odd ? cos_y : sin_y;
  c = c_negative ? -c_abs : c_abs;
  s = s_negative ? -s_abs : s_abs;
}

// All bits set where float(v) is certainly the float of libm's double (see box_muller.hpp),
// `term` being std * r * (cos or sin).
template <std::size_t M>
[[gnu::always_inline]] inline typename Lanes<M>::I64 rounds_safely(typename Lanes<M>::F64 v,
                                                                   typename Lanes<M>::F64 term,
                                                                   typename Lanes<M>::F32 f) {
  using D = typename Lanes<M>::F64;
  using I = typename Lanes<M>::I64;
  const I sign_off = splat_lanes<I>(std::int64_t{0x7fffffffffffffff});
  const D a = bit_cast_lanes<D>(bit_cast_lanes<I>(v) & sign_off);
  const D t = bit_cast_lanes<D>(bit_cast_lanes<I>(term) & sign_off);
  const D d = bit_cast_lanes<D>(bit_cast_lanes<I>(v - __builtin_convertvector(f, D)) & sign_off);
  // u, the float ulp of v's binade [2^e, 2^(e+1)): the rounding boundaries there are
  // 2^e + (j + 1/2) u, so the one nearest v is more than B away when d + B < u / 2; below
  // 2^e the next is 2^e - u / 4, more than B away when B < u / 4 (f may be 2^e or 2^(e+1)).
  using U = typename Lanes<M>::U64;
  const U binade = bit_cast_lanes<U>(a) >> 52;
  const D half_ulp = bit_cast_lanes<D>((binade - 24) << 52);
  const D quarter_ulp = bit_cast_lanes<D>((binade - 25) << 52);
  const D bound = (t + a) * kErrorBound;
  return (a >= kFloatMin) & (a < kFloatTop) & (d + bound < half_ulp) & (bound < quarter_ulp);
}

// IEEE square roots of every lane. GCC's vector extensions have none, and an intrinsic
// cannot be inlined into these templates, which have no target attribute (the widths above
// SSE2 are only called from the AVX2 function): inline assembly, as
// semantics/access.hpp's vpmovzxbd.
template <class D>
[[gnu::always_inline]] inline D sqrt_lanes(D x) {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  D r;  // (the AVX2 width is only called from the AVX2 function)
  if constexpr (sizeof(D) == 16)
    asm("sqrtpd %1, %0" : "=x"(r) : "x"(x));
  else
    asm("vsqrtpd %1, %0" : "=v"(r) : "v"(x));
  return r;
#else
  for (std::size_t i = 0; i < sizeof(D) / sizeof(double); ++i)
    x[i] = std::sqrt(x[i]);
  return x;
#endif
}

template <std::size_t M>
[[gnu::always_inline]] inline void box_muller_lanes(const double* u1, const double* u2,
                                                    std::size_t pairs, double mean, double std_dev,
                                                    float* values) {
  using D = typename Lanes<M>::F64;
  using I = typename Lanes<M>::I64;
  using F = typename Lanes<M>::F32;
  std::size_t p = 0;
  for (; p + M <= pairs; p += M) {
    const D radius = sqrt_lanes(-2.0 * log_lanes<M>(load_lanes<D>(u1 + p)));
    // The same one multiplication as the scalar theta: the same double exactly.
    const D theta = kTwoPi * load_lanes<D>(u2 + p);
    D c, s;
    sincos_lanes<M>(theta, c, s);
    const D term_c = std_dev * (radius * c), term_s = std_dev * (radius * s);
    const D vc = mean + term_c, vs = mean + term_s;
    const F fc = __builtin_convertvector(vc, F), fs = __builtin_convertvector(vs, F);
    const I safe = rounds_safely<M>(vc, term_c, fc) & rounds_safely<M>(vs, term_s, fs);
    float out[2 * M];
#pragma GCC unroll 16
    for (std::size_t i = 0; i < M; ++i) {
      out[2 * i] = fc[i];
      out[2 * i + 1] = fs[i];
    }
    std::memcpy(values + 2 * p, out, sizeof out);
    std::int64_t safe_lanes[M];
    std::memcpy(safe_lanes, &safe, sizeof safe_lanes);
    for (std::size_t i = 0; i < M; ++i)
      if (safe_lanes[i] == 0)
        box_muller_scalar(u1 + p + i, u2 + p + i, 1, mean, std_dev, values + 2 * (p + i));
  }
  box_muller_scalar(u1 + p, u2 + p, pairs - p, mean, std_dev, values + 2 * p);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define NEURONSIM_BOX_MULLER_X86 1
[[gnu::target("avx2,fma")]] void box_muller_avx2(const double* u1, const double* u2,
                                                 std::size_t pairs, double mean, double std_dev,
                                                 float* values) {
  box_muller_lanes<4>(u1, u2, pairs, mean, std_dev, values);
}
#endif

}  // namespace

void box_muller(const double* u1, const double* u2, std::size_t pairs, double mean, double std_dev,
                float* values) {
#ifdef NEURONSIM_BOX_MULLER_X86
  switch (vector_isa()) {
    // GCC 12 lowers compares of 8 doubles one lane at a time: the AVX2 width on both.
    case VectorIsa::avx512:
    case VectorIsa::avx2:
      return box_muller_avx2(u1, u2, pairs, mean, std_dev, values);
    case VectorIsa::baseline:
      break;
  }
#endif
  box_muller_lanes<2>(u1, u2, pairs, mean, std_dev, values);
}

}  // namespace neuronsim::io
