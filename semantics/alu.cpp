#include "semantics/alu.hpp"

#include <stdexcept>
#include <string>

#include "base/lanes.hpp"

// Vector values stay inside this file's loops (base/lanes.hpp).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace neuronsim::isa {

void no_fp32_form(AluOp op) {
  throw std::logic_error(std::string("ALU op ") + std::string(alu_op_name(op)) +
                         " has no fp32 form (bitvec ops run in integers: alu_i64)");
}

float alu_f32(AluOp op, float a, float b) {
  float r = 0.0f;
  with_alu_op(op, [&](auto k) {
    constexpr AluOp kOp = decltype(k)::value;
    if constexpr (is_bitwise_op(kOp))
      no_fp32_form(kOp);
    else
      r = alu_f32_fixed<kOp>(a, b);
  });
  return r;
}

namespace {

// The array loops run whole blocks of N elements as vectors (each block is read completely
// before it is written, so `out` may be `a` or `b`) and the tail one by one. One copy per
// instruction set, chosen at run time as for the fused tensor_tensor
// (semantics/execute_vector.cpp): lane-wise IEEE operations give the same bits at any width.
template <AluOp Op, std::size_t N>
[[gnu::always_inline]] inline void array_lanes(const float* a, const float* b, float* out,
                                               std::size_t n) {
  using V = typename LaneTypes<N>::F32;
  std::size_t i = 0;
  for (; i + N <= n; i += N)
    store_lanes(out + i, alu_f32_lanes<Op>(load_lanes<V>(a + i), load_lanes<V>(b + i)));
  for (; i < n; ++i)
    out[i] = alu_f32_fixed<Op>(a[i], b[i]);
}
// out = a op s, or s op a when Reverse.
template <AluOp Op, bool Reverse, std::size_t N>
[[gnu::always_inline]] inline void scalar_lanes(const float* a, float s, float* out,
                                                std::size_t n) {
  using V = typename LaneTypes<N>::F32;
  const V sv = splat_lanes<V>(s);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    const V x = load_lanes<V>(a + i);
    store_lanes(out + i, Reverse ? alu_f32_lanes<Op>(sv, x) : alu_f32_lanes<Op>(x, sv));
  }
  for (; i < n; ++i)
    out[i] = Reverse ? alu_f32_fixed<Op>(s, a[i]) : alu_f32_fixed<Op>(a[i], s);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define NEURONSIM_ALU_X86 1
template <AluOp Op>
[[gnu::target("avx2")]] void array_avx2(const float* a, const float* b, float* out, std::size_t n) {
  array_lanes<Op, 8>(a, b, out, n);
}
template <AluOp Op>
[[gnu::target("avx512f,avx512bw,avx512vl")]] void array_avx512(const float* a, const float* b,
                                                               float* out, std::size_t n) {
  array_lanes<Op, 16>(a, b, out, n);
}
template <AluOp Op, bool Reverse>
[[gnu::target("avx2")]] void scalar_avx2(const float* a, float s, float* out, std::size_t n) {
  scalar_lanes<Op, Reverse, 8>(a, s, out, n);
}
template <AluOp Op, bool Reverse>
[[gnu::target("avx512f,avx512bw,avx512vl")]] void scalar_avx512(const float* a, float s, float* out,
                                                                std::size_t n) {
  scalar_lanes<Op, Reverse, 16>(a, s, out, n);
}
#endif

template <AluOp Op>
void array_dispatch(const float* a, const float* b, float* out, std::size_t n) {
#ifdef NEURONSIM_ALU_X86
  switch (vector_isa()) {
    case VectorIsa::avx512:
      return array_avx512<Op>(a, b, out, n);
    case VectorIsa::avx2:
      return array_avx2<Op>(a, b, out, n);
    case VectorIsa::baseline:
      break;
  }
#endif
  array_lanes<Op, kLanes>(a, b, out, n);
}
template <AluOp Op, bool Reverse>
void scalar_dispatch(const float* a, float s, float* out, std::size_t n) {
#ifdef NEURONSIM_ALU_X86
  switch (vector_isa()) {
    case VectorIsa::avx512:
      return scalar_avx512<Op, Reverse>(a, s, out, n);
    case VectorIsa::avx2:
      return scalar_avx2<Op, Reverse>(a, s, out, n);
    case VectorIsa::baseline:
      break;
  }
#endif
  scalar_lanes<Op, Reverse, kLanes>(a, s, out, n);
}

}  // namespace

void alu_f32_array(AluOp op, const float* a, const float* b, float* out, std::size_t n) {
  with_alu_op(op, [&](auto k) {
    constexpr AluOp kOp = decltype(k)::value;
    if constexpr (is_bitwise_op(kOp)) {
      no_fp32_form(kOp);
    } else if constexpr (kAluHasLanes<kOp>) {
      array_dispatch<kOp>(a, b, out, n);
    } else {
      for (std::size_t i = 0; i < n; ++i)
        out[i] = alu_f32_fixed<kOp>(a[i], b[i]);
    }
  });
}

void alu_f32_scalar(AluOp op, const float* a, float s, bool reverse, float* out, std::size_t n) {
  with_alu_op(op, [&](auto k) {
    constexpr AluOp kOp = decltype(k)::value;
    if constexpr (is_bitwise_op(kOp)) {
      no_fp32_form(kOp);
    } else if constexpr (kAluHasLanes<kOp>) {
      if (reverse)
        scalar_dispatch<kOp, true>(a, s, out, n);
      else
        scalar_dispatch<kOp, false>(a, s, out, n);
    } else if (reverse) {
      for (std::size_t i = 0; i < n; ++i)
        out[i] = alu_f32_fixed<kOp>(s, a[i]);
    } else {
      for (std::size_t i = 0; i < n; ++i)
        out[i] = alu_f32_fixed<kOp>(a[i], s);
    }
  });
}

float alu_f32_reduce(AluOp op, const float* x, std::size_t n) {
  if (n == 0) return 0.0f;
  float acc = x[0];
  with_alu_op(op, [&](auto k) {
    constexpr AluOp kOp = decltype(k)::value;
    if constexpr (is_bitwise_op(kOp)) {
      no_fp32_form(kOp);
    } else {
      for (std::size_t i = 1; i < n; ++i)
        acc = alu_f32_fixed<kOp>(acc, x[i]);
    }
  });
  return acc;
}

void alu_f32_reduce_groups(AluOp op, const float* x, std::size_t n, std::size_t groups,
                           float* out) {
  constexpr std::size_t kChains = 8;  // independent folds in flight
  std::size_t g = 0;
  if (n > 0) {
    with_alu_op(op, [&](auto k) {
      constexpr AluOp kOp = decltype(k)::value;
      if constexpr (is_bitwise_op(kOp)) {
        no_fp32_form(kOp);
      } else {
        for (; g + kChains <= groups; g += kChains) {
          const float* base = x + g * n;
          float acc[kChains];
          for (std::size_t c = 0; c < kChains; ++c)
            acc[c] = base[c * n];
          for (std::size_t i = 1; i < n; ++i)
            for (std::size_t c = 0; c < kChains; ++c)
              acc[c] = alu_f32_fixed<kOp>(acc[c], base[c * n + i]);
          for (std::size_t c = 0; c < kChains; ++c)
            out[g + c] = acc[c];
        }
      }
    });
  }
  for (; g < groups; ++g)
    out[g] = alu_f32_reduce(op, x + g * n, n);
}

namespace {

// Re-reads the low `fmt.bits` bits of v as a value of that width and signedness.
std::int64_t wrap_to(std::uint64_t v, IntFormat fmt) {
  if (fmt.bits >= 64) return static_cast<std::int64_t>(v);
  const std::uint64_t mask = (std::uint64_t{1} << fmt.bits) - 1;
  v &= mask;
  if (fmt.is_signed && (v >> (fmt.bits - 1)) != 0) v |= ~mask;  // sign-extend
  return static_cast<std::int64_t>(v);
}

}  // namespace

std::int64_t alu_i64(AluOp op, std::int64_t a, std::int64_t b, IntFormat fmt) {
  // Unsigned arithmetic: wraps instead of overflowing (which would be undefined).
  const auto ua = static_cast<std::uint64_t>(a);
  const auto ub = static_cast<std::uint64_t>(b);
  switch (op) {
    case AluOp::bypass:
      return a;
    case AluOp::add:
      return static_cast<std::int64_t>(ua + ub);
    case AluOp::subtract:
      return static_cast<std::int64_t>(ua - ub);
    case AluOp::multiply:
      return static_cast<std::int64_t>(ua * ub);
    case AluOp::max:
      return a > b ? a : b;
    case AluOp::min:
      return a < b ? a : b;
    case AluOp::abs_max: {
      const std::uint64_t abs_a = a < 0 ? 0 - ua : ua;
      const std::uint64_t abs_b = b < 0 ? 0 - ub : ub;
      return static_cast<std::int64_t>(abs_a > abs_b ? abs_a : abs_b);
    }
    case AluOp::is_equal:
      return a == b;
    case AluOp::not_equal:
      return a != b;
    case AluOp::is_ge:
      return a >= b;
    case AluOp::is_gt:
      return a > b;
    case AluOp::is_le:
      return a <= b;
    case AluOp::is_lt:
      return a < b;
    case AluOp::bitwise_and:
      return a & b;
    case AluOp::bitwise_or:
      return a | b;
    case AluOp::bitwise_xor:
      return a ^ b;
    case AluOp::logical_shift_left:
    case AluOp::logical_shift_right: {
      if (b < 0 || b >= fmt.bits) return 0;
      const std::uint64_t bits = fmt.bits >= 64 ? ua : ua & ((std::uint64_t{1} << fmt.bits) - 1);
      return wrap_to(op == AluOp::logical_shift_left ? bits << b : bits >> b, fmt);
    }
    case AluOp::divide:
    case AluOp::pow:
      break;
  }
  // Only divide and pow get here (the switch names every op: -Wswitch under -Werror).
  throw std::logic_error(std::string("ALU op ") + std::string(alu_op_name(op)) +
                         " has no integer form (callers reject it with bitvec ops)");
}

std::int64_t alu_i64_reduce(AluOp op, const std::int64_t* x, std::size_t n, IntFormat fmt) {
  if (n == 0) return 0;
  std::int64_t acc = x[0];
  for (std::size_t i = 1; i < n; ++i)
    acc = alu_i64(op, acc, x[i], fmt);
  return acc;
}

}  // namespace neuronsim::isa
