// Activation functions against float64 references, and the activation instruction:
// scale (immediate and [P,1]), bias, output casts and the add-reduction.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "semantics/activation.hpp"
#include "semantics_test_memory.hpp"

using namespace semantics_test;

namespace {

const double kPi = 3.14159265358979323846;

// The float64 definition of each function.
double reference(ActFunc f, double x) {
  switch (f) {
    case ActFunc::copy:
      return x;
    case ActFunc::square:
      return x * x;
    case ActFunc::exp:
      return std::exp(x);
    case ActFunc::log:
      return std::log(x);
    case ActFunc::sqrt:
      return std::sqrt(x);
    case ActFunc::rsqrt:
      return 1.0 / std::sqrt(x);
    case ActFunc::reciprocal:
      return 1.0 / x;
    case ActFunc::relu:
      return x > 0 ? x : 0.0;
    case ActFunc::sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case ActFunc::tanh:
      return std::tanh(x);
    case ActFunc::gelu:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case ActFunc::gelu_apprx_tanh:
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / kPi) * (x + 0.044715 * x * x * x)));
    case ActFunc::silu:
      return x / (1.0 + std::exp(-x));
    case ActFunc::softplus:
      return std::log1p(std::exp(x));
    case ActFunc::erf:
      return std::erf(x);
    case ActFunc::sin:
      return std::sin(x);
    case ActFunc::sign:
      return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0);
    case ActFunc::abs:
      return std::fabs(x);
  }
  return 0;
}

}  // namespace

TEST_CASE("semantics: every activation function is within the documented tolerance of float64",
          "[semantics]") {
  // docs/numerics.md: relative 1e-5 (about 2^-17: a few ulp after argument and closed-form
  // roundings) plus absolute 1e-6 for results near zero (gelu's negative tail, sin near
  // its zeros, cancellation in 1 + erf).
  for (int i = 0; i < kActFuncCount; ++i) {
    const auto f = static_cast<ActFunc>(i);
    INFO("function " << act_func_name(f));
    for (int step = -400; step <= 400; ++step) {
      float x = static_cast<float>(step) * 0.0375f;  // -15 .. 15
      if ((f == ActFunc::log || f == ActFunc::sqrt || f == ActFunc::rsqrt) && x <= 0.0f)
        x = -x + 0.01f;
      if (f == ActFunc::reciprocal && x == 0.0f) x = 0.01f;
      INFO("x = " << x);
      CHECK(close(activate(f, x), reference(f, x), 1e-5, 1e-6));
    }
  }
}

TEST_CASE("semantics: activation special values", "[semantics]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(activate(ActFunc::sign, 0.0f) == 0.0f);
  CHECK(activate(ActFunc::sign, -0.0f) == 0.0f);
  CHECK(activate(ActFunc::sign, -3.0f) == -1.0f);
  CHECK(std::isnan(activate(ActFunc::sign, nan)));
  CHECK(std::isnan(activate(ActFunc::relu, nan)));
  CHECK_FALSE(std::signbit(activate(ActFunc::relu, -0.0f)));
  CHECK(activate(ActFunc::log, 0.0f) == -inf);
  CHECK(std::isnan(activate(ActFunc::log, -1.0f)));
  CHECK(activate(ActFunc::rsqrt, 0.0f) == inf);
  CHECK(activate(ActFunc::reciprocal, -0.0f) == -inf);
  CHECK(activate(ActFunc::exp, 100.0f) == inf);
  CHECK(activate(ActFunc::sigmoid, -200.0f) == 0.0f);
  CHECK(activate(ActFunc::sigmoid, 200.0f) == 1.0f);
  CHECK(activate(ActFunc::softplus, 100.0f) == 100.0f);  // no overflow in the stable form
  CHECK(activate(ActFunc::softplus, -100.0f) >= 0.0f);
  CHECK(activate(ActFunc::silu, -200.0f) == -0.0f);
  CHECK(activate(ActFunc::gelu, 10.0f) == 10.0f);
  CHECK(activate(ActFunc::tanh, inf) == 1.0f);
}

TEST_CASE("semantics: activation instruction applies scale, bias and casts on write",
          "[semantics]") {
  for (DType out_t : {DType::fp32, DType::bf16, DType::fp16, DType::fp8_e4m3}) {
    INFO("dst " << dtype_name(out_t));
    Bench b;
    const auto src_a = b.alloc(MemSpace::sbuf, DType::bf16, 128, 64);
    const auto dst_a = b.alloc(MemSpace::sbuf, out_t, 128, 64, 0, 4096);
    const auto bias_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 1, 0, 8192);
    const auto scale_a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 1, 0, 8200);
    const AccessPattern src = b.tile(src_a, 128, 64), dst = b.tile(dst_a, 128, 64);
    const AccessPattern bias = b.tile(bias_a, 128, 1), scale = b.tile(scale_a, 128, 1);
    const auto x = b.fill_random(src, 1);
    const auto bv = b.fill(bias, [](std::uint32_t p, std::uint64_t) { return 0.01 * p - 0.5; });
    const auto sv = b.fill(scale, [](std::uint32_t p, std::uint64_t) { return 1.0 + p / 64.0; });
    for (bool vector_scale : {false, true}) {
      Activation act;
      act.dst = dst;
      act.src = src;
      act.func = ActFunc::gelu_apprx_tanh;
      if (vector_scale)
        act.scale = scale;
      else
        act.scale = 0.75f;
      act.bias = bias;
      b.run(act);
      const Tol tol = dtype_tol(out_t);
      for (std::uint32_t p = 0; p < 128; ++p)
        for (std::uint32_t f = 0; f < 64; ++f) {
          const double s = vector_scale ? sv[p] : 0.75;
          const double want = reference(ActFunc::gelu_apprx_tanh, x[p * 64 + f] * s + bv[p]);
          INFO("p " << p << " f " << f);
          REQUIRE(close(b.get(dst, p, f), want, tol.rel + 1e-5, tol.abs + 1e-6));
        }
    }
  }
}

TEST_CASE("semantics: activation reduce sums the fp32 results before the output cast",
          "[semantics]") {
  Bench b;
  const auto src_a = b.alloc(MemSpace::sbuf, DType::fp32, 4, 3);
  const auto dst_a = b.alloc(MemSpace::sbuf, DType::bf16, 4, 3, 0, 64);
  const auto red_a = b.alloc(MemSpace::sbuf, DType::fp32, 4, 1, 0, 128);
  const AccessPattern src = b.tile(src_a, 4, 3), dst = b.tile(dst_a, 4, 3);
  const AccessPattern red = b.tile(red_a, 4, 1);
  // 1 + 2^-10 is not a bf16: each element rounds to 1.0 in dst, but the sum keeps the bits.
  b.fill(src, [](std::uint32_t p, std::uint64_t) { return 1.0 + std::ldexp(1.0, -10) + p; });
  Activation act;
  act.dst = dst;
  act.src = src;
  act.func = ActFunc::copy;
  act.reduce_dst = red;
  b.run(act);
  for (std::uint32_t p = 0; p < 4; ++p) {
    const double elem = 1.0 + std::ldexp(1.0, -10) + p;
    CHECK(b.get(red, p, 0) == static_cast<float>(3 * elem));
    CHECK(b.get(dst, p, 0) == static_cast<float>(1.0 + p));
  }
}

TEST_CASE("semantics: activation in place on the same tile", "[semantics]") {
  Bench b;
  const auto a = b.alloc(MemSpace::sbuf, DType::fp32, 128, 32);
  const AccessPattern t = b.tile(a, 128, 32);
  const auto x = b.fill_random(t, 7);
  Activation act;
  act.dst = t;
  act.src = t;
  act.func = ActFunc::exp;
  act.scale = -1.0f;
  b.run(act);
  for (std::uint32_t p = 0; p < 128; ++p)
    for (std::uint32_t f = 0; f < 32; ++f)
      REQUIRE(close(b.get(t, p, f), std::exp(-x[p * 32 + f]), 1e-6));
}
