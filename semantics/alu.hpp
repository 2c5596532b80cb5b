#pragma once
// The Vector/GpSimd ALU (reference section 3): every AluOp on fp32 operands, as IEEE fp32,
// and the integer form used when an instruction contains a bitwise or shift op. The
// per-element functions are inline and the array loops hoist the op switch out of the
// element loop: this is the simulator's hot path. docs/numerics.md states the choices.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "base/lanes.hpp"
#include "isa/dtype.hpp"
#include "isa/instruction.hpp"

namespace neuronsim::isa {

// is_bitwise_op and is_comparison_op are ISA facts: isa/instruction.hpp.

namespace alu_detail {

// NaN-propagating max/min (IEEE 754-2019 maximum/minimum, numpy's np.maximum): a NaN in
// either operand gives NaN, so reads of NaN-filled uninitialised memory stay visible.
// +0 is greater than -0.
inline float nan_max(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
inline float nan_min(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

}  // namespace alu_detail

template <AluOp>
inline constexpr bool kAlwaysFalse = false;

// One op with the op known at compile time, so loops over it vectorise. No case for the
// bitvec ops: they have only the integer form (alu_i64), and the array forms below refuse
// them; an op added to the table without its case here does not compile.
template <AluOp Op>
inline float alu_f32_fixed(float a, float b) {
  using namespace alu_detail;
  if constexpr (Op == AluOp::bypass)
    return a;
  else if constexpr (Op == AluOp::add)
    return a + b;
  else if constexpr (Op == AluOp::subtract)
    return a - b;
  else if constexpr (Op == AluOp::multiply)
    return a * b;
  else if constexpr (Op == AluOp::divide)
    return a / b;  // IEEE: x/0 = +-inf, 0/0 = NaN
  else if constexpr (Op == AluOp::max)
    return nan_max(a, b);
  else if constexpr (Op == AluOp::min)
    return nan_min(a, b);
  else if constexpr (Op == AluOp::pow)
    return std::pow(a, b);  // the float overload: powf
  else if constexpr (Op == AluOp::abs_max)
    return nan_max(std::fabs(a), std::fabs(b));
  else if constexpr (Op == AluOp::is_equal)
    return a == b ? 1.0f : 0.0f;
  else if constexpr (Op == AluOp::not_equal)
    return a != b ? 1.0f : 0.0f;
  else if constexpr (Op == AluOp::is_ge)
    return a >= b ? 1.0f : 0.0f;
  else if constexpr (Op == AluOp::is_gt)
    return a > b ? 1.0f : 0.0f;
  else if constexpr (Op == AluOp::is_le)
    return a <= b ? 1.0f : 0.0f;
  else if constexpr (Op == AluOp::is_lt)
    return a < b ? 1.0f : 0.0f;
  else
    static_assert(kAlwaysFalse<Op>, "an AluOp without its fp32 form (or a bitvec op)");
}

// A bitvec op reached an fp32 path: a caller bug (callers check is_bitwise_op and run the
// instruction in integers), reported as such rather than computed as some value.
[[noreturn]] void no_fp32_form(AluOp op);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"  // see base/lanes.hpp
namespace alu_detail {

// nan_max / nan_min lane by lane on GCC vectors of fp32 (V: LaneTypes<N>::F32): the scalar
// tests in the same order, as selects, so every lane gets the scalar function's bits (NaN
// payloads included). Mask: the vector of int32 that compares give.
template <class V>
[[gnu::always_inline]] inline V nan_max_lanes(V a, V b) {
  using Mask = decltype(a < b);
  const Mask a_negative = bit_cast_lanes<Mask>(a) < 0;
  V r = a > b ? a : b;
  r = a == b ? (a_negative ? b : a) : r;
  r = b != b ? b : r;
  return a != a ? a : r;
}
template <class V>
[[gnu::always_inline]] inline V nan_min_lanes(V a, V b) {
  using Mask = decltype(a < b);
  const Mask a_negative = bit_cast_lanes<Mask>(a) < 0;
  V r = a < b ? a : b;
  r = a == b ? (a_negative ? a : b) : r;
  r = b != b ? b : r;
  return a != a ? a : r;
}
template <class V>
[[gnu::always_inline]] inline V fabs_lanes(V a) {
  using Mask = decltype(a < a);
  return bit_cast_lanes<V>(bit_cast_lanes<Mask>(a) & 0x7fffffff);
}
// 1.0 where the comparison mask is set, else 0.0.
template <class V, class Mask>
[[gnu::always_inline]] inline V one_where(Mask mask) {
  const V one = splat_lanes<V>(1.0f), zero = V{};
  return mask ? one : zero;
}

}  // namespace alu_detail

// Whether Op has a lane-wise fp32 form (alu_f32_lanes): not pow (powf per element), and not
// the bitwise and shift ops (integer form only).
// (isa/alu_op.hpp's `lanes` trait).
template <AluOp Op>
inline constexpr bool kAluHasLanes = has_fp32_lanes(Op);

// alu_f32_fixed<Op> on every lane: the same IEEE fp32 operation, the same bits.
template <AluOp Op, class V>
[[gnu::always_inline]] inline V alu_f32_lanes(V a, V b) {
  using namespace alu_detail;
  static_assert(kAluHasLanes<Op>, "no lane-wise form");
  if constexpr (Op == AluOp::bypass)
    return a;
  else if constexpr (Op == AluOp::add)
    return a + b;
  else if constexpr (Op == AluOp::subtract)
    return a - b;
  else if constexpr (Op == AluOp::multiply)
    return a * b;
  else if constexpr (Op == AluOp::divide)
    return a / b;
  else if constexpr (Op == AluOp::max)
    return nan_max_lanes(a, b);
  else if constexpr (Op == AluOp::min)
    return nan_min_lanes(a, b);
  else if constexpr (Op == AluOp::abs_max)
    return nan_max_lanes(fabs_lanes(a), fabs_lanes(b));
  else if constexpr (Op == AluOp::is_equal)
    return one_where<V>(a == b);
  else if constexpr (Op == AluOp::not_equal)
    return one_where<V>(a != b);
  else if constexpr (Op == AluOp::is_ge)
    return one_where<V>(a >= b);
  else if constexpr (Op == AluOp::is_gt)
    return one_where<V>(a > b);
  else if constexpr (Op == AluOp::is_le)
    return one_where<V>(a <= b);
  else if constexpr (Op == AluOp::is_lt)
    return one_where<V>(a < b);
  else
    static_assert(kAlwaysFalse<Op>, "an AluOp with the lanes trait but no lane-wise form");
}
#pragma GCC diagnostic pop

// Calls fn(std::integral_constant<AluOp, op>{}) so that fn's body is compiled per op. The
// cases come from the op table (isa/alu_op.hpp), so none can be missing.
template <class Fn>
inline void with_alu_op(AluOp op, Fn&& fn) {
  switch (op) {
#define NEURONSIM_ALU_CASE(name, kind, traits)        \
  case AluOp::name:                                   \
    fn(std::integral_constant<AluOp, AluOp::name>{}); \
    return;
    NEURONSIM_ALU_OPS(NEURONSIM_ALU_CASE)
#undef NEURONSIM_ALU_CASE
  }
}

// a op b in fp32 (one element; prefer the array forms in loops).
float alu_f32(AluOp op, float a, float b);
// out[i] = a[i] op b[i].
void alu_f32_array(AluOp op, const float* a, const float* b, float* out, std::size_t n);
// out[i] = a[i] op s, or s op a[i] when reverse. `out` may be `a`.
void alu_f32_scalar(AluOp op, const float* a, float s, bool reverse, float* out, std::size_t n);

// op folded over x in order, ((x0 op x1) op x2) ..., as a lane's accumulator streams the
// elements; 0 when n == 0.
float alu_f32_reduce(AluOp op, const float* x, std::size_t n);
// out[g] = alu_f32_reduce(op, x + g * n, n) for g < groups, several groups side by side
// (each in its own order: the same bits, without one chain's latency per element).
void alu_f32_reduce_groups(AluOp op, const float* x, std::size_t n, std::size_t groups, float* out);

// Integer operand width for shifts and wrap-around: taken from the instruction's first
// tensor operand.
struct IntFormat {
  int bits = 32;
  bool is_signed = true;
  static IntFormat of(DType t) {
    return {static_cast<int>(dtype_size(t) * 8), is_signed_integer(t)};
  }
};

// a op b on integers. Arithmetic wraps in 64 bits (stores saturate to the destination
// type); bitwise ops act on the values' two's-complement bits; shifts act on the low
// `fmt.bits` bits (logical: zeros shift in) and the result is re-read as `fmt`; a shift
// count outside [0, bits) gives 0. An op without the integer trait (divide, pow) throws
// std::logic_error: callers reject those first.
std::int64_t alu_i64(AluOp op, std::int64_t a, std::int64_t b, IntFormat fmt);
std::int64_t alu_i64_reduce(AluOp op, const std::int64_t* x, std::size_t n, IntFormat fmt);

}  // namespace neuronsim::isa
