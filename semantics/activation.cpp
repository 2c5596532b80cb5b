#include "semantics/activation.hpp"

#include <cmath>
#include <type_traits>

#include "base/host_simd.hpp"
#include "base/lanes.hpp"
#include "semantics/exp_lanes.hpp"

// Vector values stay inside this file's loops (base/lanes.hpp).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace neuronsim::isa {

namespace {

constexpr float kInvSqrt2 = 0.70710678118654752440f;     // 1/sqrt(2), for exact gelu
constexpr float kSqrt2OverPi = 0.79788456080286535588f;  // sqrt(2/pi), for tanh gelu
constexpr float kGeluCubic = 0.044715f;                  // tanh-gelu's cubic coefficient

// 1/(1+e^-x): e^-x overflows to inf for x < -88, giving the correct limit 0.
inline float sigmoid(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

template <ActFunc>
[[maybe_unused]] inline constexpr bool kNoActFunc = false;

// One case per ActFunc, no fallback: a function added without its case does not compile.
template <ActFunc F>
inline float act(float x) {
  if constexpr (F == ActFunc::copy)
    return x;
  else if constexpr (F == ActFunc::square)
    return x * x;
  else if constexpr (F == ActFunc::exp)
    return std::exp(x);  // expf
  else if constexpr (F == ActFunc::log)
    return std::log(x);  // logf: log(0) = -inf, log(<0) = NaN
  else if constexpr (F == ActFunc::sqrt)
    return std::sqrt(x);  // sqrtf, correctly rounded
  else if constexpr (F == ActFunc::rsqrt)
    return 1.0f / std::sqrt(x);  // two roundings
  else if constexpr (F == ActFunc::reciprocal)
    return 1.0f / x;
  // NaN stays NaN; -0 gives +0.
  else if constexpr (F == ActFunc::relu)
    return x > 0.0f ? x : (x != x ? x : 0.0f);
  else if constexpr (F == ActFunc::sigmoid)
    return sigmoid(x);
  else if constexpr (F == ActFunc::tanh)
    return std::tanh(x);  // tanhf
  else if constexpr (F == ActFunc::gelu)
    return 0.5f * x * (1.0f + std::erf(x * kInvSqrt2));
  else if constexpr (F == ActFunc::gelu_apprx_tanh) {
    return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
  }
  // x * sigmoid(x) written as a quotient: one rounding fewer, same limits.
  else if constexpr (F == ActFunc::silu)
    return x / (1.0f + std::exp(-x));
  // log(1+e^x) = max(x,0) + log1p(e^-|x|): never overflows, exact limits at both ends.
  else if constexpr (F == ActFunc::softplus) {
    return std::fmax(x, 0.0f) + std::log1p(std::exp(-std::fabs(x)));
  } else if constexpr (F == ActFunc::erf)
    return std::erf(x);  // erff
  else if constexpr (F == ActFunc::sin)
    return std::sin(x);  // sinf, full range reduction
  else if constexpr (F == ActFunc::sign) {
    return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : (x != x ? x : 0.0f));
  } else if constexpr (F == ActFunc::abs)
    return std::fabs(x);
  else
    static_assert(kNoActFunc<F>, "an ActFunc without its function");
}

template <class Fn>
inline void with_act_func(ActFunc f, Fn&& fn) {
  switch (f) {
#define NEURONSIM_ACT_CASE(name)                          \
  case ActFunc::name:                                     \
    fn(std::integral_constant<ActFunc, ActFunc::name>{}); \
    return;
    NEURONSIM_ACT_CASE(copy)
    NEURONSIM_ACT_CASE(square)
    NEURONSIM_ACT_CASE(exp)
    NEURONSIM_ACT_CASE(log)
    NEURONSIM_ACT_CASE(sqrt)
    NEURONSIM_ACT_CASE(rsqrt)
    NEURONSIM_ACT_CASE(reciprocal)
    NEURONSIM_ACT_CASE(relu)
    NEURONSIM_ACT_CASE(sigmoid)
    NEURONSIM_ACT_CASE(tanh)
    NEURONSIM_ACT_CASE(gelu)
    NEURONSIM_ACT_CASE(gelu_apprx_tanh)
    NEURONSIM_ACT_CASE(silu)
    NEURONSIM_ACT_CASE(softplus)
    NEURONSIM_ACT_CASE(erf)
    NEURONSIM_ACT_CASE(sin)
    NEURONSIM_ACT_CASE(sign)
    NEURONSIM_ACT_CASE(abs)
#undef NEURONSIM_ACT_CASE
  }
}

// The functions whose only libm call is expf have a lane-wise form: exp_lanes gives
// expf's bits, and the rest are the same IEEE fp32 operations per lane.
template <ActFunc F>
inline constexpr bool kHasLanes = F == ActFunc::exp || F == ActFunc::sigmoid || F == ActFunc::silu;

template <ActFunc F, std::size_t N>
[[gnu::always_inline]] inline void act_lanes(const float* in, float* out, std::size_t n) {
  using V = typename LaneTypes<N>::F32;
  const V one = splat_lanes<V>(1.0f);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    const V x = load_lanes<V>(in + i);
    if constexpr (F == ActFunc::exp)
      store_lanes(out + i, exp_detail::exp_lanes<N>(x));
    else if constexpr (F == ActFunc::sigmoid)
      store_lanes(out + i, one / (one + exp_detail::exp_lanes<N>(-x)));
    else
      store_lanes(out + i, x / (one + exp_detail::exp_lanes<N>(-x)));
  }
  for (; i < n; ++i)
    out[i] = act<F>(in[i]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define NEURONSIM_ACT_X86 1
template <ActFunc F>
[[gnu::target("avx2")]] void act_avx2(const float* in, float* out, std::size_t n) {
  act_lanes<F, 8>(in, out, n);
}
template <ActFunc F>
[[gnu::target("avx512f,avx512bw,avx512vl")]] void act_avx512(const float* in, float* out,
                                                             std::size_t n) {
  act_lanes<F, 16>(in, out, n);
}
#endif

// One copy per instruction set, chosen at run time (as semantics/alu.cpp's arrays).
template <ActFunc F>
void act_dispatch(const float* in, float* out, std::size_t n) {
#ifdef NEURONSIM_ACT_X86
  switch (vector_isa()) {
    case VectorIsa::avx512:
      return act_avx512<F>(in, out, n);
    case VectorIsa::avx2:
      return act_avx2<F>(in, out, n);
    case VectorIsa::baseline:
      break;
  }
#endif
  act_lanes<F, kLanes>(in, out, n);
}

}  // namespace

float activate(ActFunc f, float x) {
  float r = x;
  with_act_func(f, [&](auto k) { r = act<decltype(k)::value>(x); });
  return r;
}

void activate_array(ActFunc f, const float* in, float* out, std::size_t n) {
  with_act_func(f, [&](auto k) {
    constexpr ActFunc kF = decltype(k)::value;
    if constexpr (kHasLanes<kF>)
      act_dispatch<kF>(in, out, n);
    else
      for (std::size_t i = 0; i < n; ++i)
        out[i] = act<kF>(in[i]);
  });
}

}  // namespace neuronsim::isa
