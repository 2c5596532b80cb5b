// Vector/GpSimd ALU instructions: tensor_tensor, tensor_scalar, scalar_tensor_tensor.
// They compute in fp32 and cast on write; an instruction containing a bitwise or shift op
// computes in integers instead (exact; every tensor operand must be an integer dtype).
#include <optional>
#include <string>
#include <utility>

#include "semantics/alu.hpp"
#include "semantics/ops.hpp"

// Vector values stay inside this file's loops (base/lanes.hpp).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace neuronsim::isa::sem {

namespace {

void reject_non_integer_ops(const Site& s, std::initializer_list<AluOp> ops) {
  for (AluOp op : ops)
    if (!has_integer_form(op))
      s.fail("op", std::string(alu_op_name(op)) +
                       " cannot be combined with bitwise ops (the instruction runs in integers)");
}

// The fused fast path of tensor_tensor: one pass over each row, a block of N elements at a
// time read from a and b, computed and written to dst, with the op and the three dtypes
// fixed at compile time. Same bits as the buffered path: the same conversions and the same
// fp32 op per element (tests/unit/semantics_fast_paths.cpp).
template <AluOp Op, class A, class B, class D, std::size_t N>
[[gnu::always_inline]] inline void tensor_tensor_rows(const Operand& dst, const Operand& a,
                                                      const Operand& b) {
  const std::size_t n = dst.free();
  for (std::uint32_t p = 0; p < dst.partitions(); ++p) {
    const std::uint8_t* ra = a.row_data(p);
    const std::uint8_t* rb = b.row_data(p);
    std::uint8_t* rd = dst.row_data(p);
    std::size_t i = 0;
    for (; i + N <= n; i += N)
      D::template put_lanes<N>(rd + i * D::kBytes,
                               alu_f32_lanes<Op>(A::template get_lanes<N>(ra + i * A::kBytes),
                                                 B::template get_lanes<N>(rb + i * B::kBytes)));
    for (; i < n; ++i)
      D::put(rd + i * D::kBytes,
             alu_f32_fixed<Op>(A::get(ra + i * A::kBytes), B::get(rb + i * B::kBytes)));
  }
}

// One copy per instruction set, chosen at run time: the baseline (SSE2, 4 lanes), AVX2 (8)
// and AVX-512 (16). Lane-wise IEEE operations and integer bit manipulation give the same
// bits at any width (no op here has a multiply-add that FMA could contract).
#if defined(__x86_64__) && defined(__GNUC__)
#define NEURONSIM_ELEMENTWISE_X86 1
template <AluOp Op, class A, class B, class D>
[[gnu::target("avx2")]] void tensor_tensor_rows_avx2(const Operand& dst, const Operand& a,
                                                     const Operand& b) {
  tensor_tensor_rows<Op, A, B, D, 8>(dst, a, b);
}
template <AluOp Op, class A, class B, class D>
[[gnu::target("avx512f,avx512bw,avx512vl")]] void tensor_tensor_rows_avx512(const Operand& dst,
                                                                            const Operand& a,
                                                                            const Operand& b) {
  tensor_tensor_rows<Op, A, B, D, 16>(dst, a, b);
}
#endif

template <AluOp Op, class A, class B, class D>
void tensor_tensor_rows_dispatch(const Operand& dst, const Operand& a, const Operand& b) {
#ifdef NEURONSIM_ELEMENTWISE_X86
  switch (vector_isa()) {
    case VectorIsa::avx512:
      return tensor_tensor_rows_avx512<Op, A, B, D>(dst, a, b);
    case VectorIsa::avx2:
      return tensor_tensor_rows_avx2<Op, A, B, D>(dst, a, b);
    case VectorIsa::baseline:
      break;
  }
#endif
  tensor_tensor_rows<Op, A, B, D, kLanes>(dst, a, b);
}

// Writing a dst row block by block gives the buffered result when the input row is read
// before it can be overwritten: the two rows are disjoint, or exactly in place (same start,
// same element size: a block is read whole before it is written).
bool row_safe_to_fuse(const Operand& dst, const Operand& in, std::uint32_t p) {
  // As integers: the rows may belong to different objects, which `<` on pointers does not
  // order.
  const auto d = reinterpret_cast<std::uintptr_t>(dst.row_data(p));
  const auto x = reinterpret_cast<std::uintptr_t>(in.row_data(p));
  if (d == x) return dtype_size(dst.dtype()) == dtype_size(in.dtype());
  const std::size_t d_bytes = dst.free() * dtype_size(dst.dtype());
  const std::size_t x_bytes = in.free() * dtype_size(in.dtype());
  return d + d_bytes <= x || x + x_bytes <= d;
}

// Runs tensor_tensor fused when it can: an op with a lane-wise form, operands with contiguous
// rows, fp32/bf16 ones or fp16/fp8 inputs of one dtype (with_narrow_codec), no row of an input
// written before it is read. False: nothing was done.
bool tensor_tensor_fused(const TensorTensor& tt, const Operand& dst, const Operand& a,
                         const Operand& b, bool whole) {
  if (whole || !dst.rows_contiguous() || !a.rows_contiguous() || !b.rows_contiguous()) return false;
  for (std::uint32_t p = 0; p < dst.partitions(); ++p)
    if (!row_safe_to_fuse(dst, a, p) || !row_safe_to_fuse(dst, b, p)) return false;
  bool done = false;
  with_alu_op(tt.op, [&](auto k) {
    constexpr AluOp kOp = decltype(k)::value;
    if constexpr (kAluHasLanes<kOp>) {
      with_lane_codec(a.dtype(), [&](auto ca) {
        with_lane_codec(b.dtype(), [&](auto cb) {
          done = with_lane_codec(dst.dtype(), [&](auto cd) {
            tensor_tensor_rows_dispatch<kOp, decltype(ca), decltype(cb), decltype(cd)>(dst, a, b);
          });
        });
      });
      // fp16/fp8 inputs of one dtype, into that dtype, fp32 or bf16 (not every mix: each
      // combination is 3 compiled copies per op).
      if (done || a.dtype() != b.dtype()) return;
      with_narrow_codec(a.dtype(), [&](auto cn) {
        using N = decltype(cn);
        if (dst.dtype() == a.dtype()) {
          tensor_tensor_rows_dispatch<kOp, N, N, N>(dst, a, b);
          done = true;
          return;
        }
        done = with_lane_codec(dst.dtype(), [&](auto cd) {
          tensor_tensor_rows_dispatch<kOp, N, N, decltype(cd)>(dst, a, b);
        });
      });
    }
  });
  return done;
}

}  // namespace

void run(const Site& s, const TensorTensor& tt) {
  const Operand dst(s, tt.dst, "dst"), a(s, tt.a, "a"), b(s, tt.b, "b");
  require_same_shape(s, dst, a);
  require_same_shape(s, dst, b);
  const bool whole = dst.may_clobber_later_rows(a) || dst.may_clobber_later_rows(b);
  const std::size_t f = dst.free();
  if (is_bitwise_op(tt.op)) {
    for (const Operand* op : {&dst, &a, &b})
      require_integer(s, *op, tt.op);
    const IntFormat fmt = IntFormat::of(a.dtype());
    std::vector<std::int64_t> va, vb;
    for_partition_blocks(dst.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
      load_rows(a, p0, n, va);
      load_rows(b, p0, n, vb);
      for (std::size_t i = 0; i < n * f; ++i)
        va[i] = alu_i64(tt.op, va[i], vb[i], fmt);
      store_rows(dst, p0, n, va);
    });
    return;
  }
  if (tensor_tensor_fused(tt, dst, a, b, whole)) return;
  std::vector<float> va, vb;
  for_partition_blocks(dst.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
    load_rows(a, p0, n, va);
    load_rows(b, p0, n, vb);
    alu_f32_array(tt.op, va.data(), vb.data(), va.data(), n * f);
    store_rows(dst, p0, n, va);
  });
}

void run(const Site& s, const TensorScalar& ts) {
  const Operand dst(s, ts.dst, "dst"), src(s, ts.src, "src");
  require_same_shape(s, dst, src);
  const std::uint32_t parts = dst.partitions();
  const std::size_t f = dst.free();
  const bool whole = dst.may_clobber_later_rows(src);
  std::optional<Operand> reduce_dst;
  if (ts.reduce_dst) {
    reduce_dst.emplace(s, *ts.reduce_dst, "reduce_dst");
    require_column(s, *reduce_dst, parts);
  }
  const bool integer = is_bitwise_op(ts.op0) || (ts.op1 && is_bitwise_op(*ts.op1)) ||
                       (ts.reduce_dst && is_bitwise_op(ts.reduce_op));

  if (integer) {
    reject_non_integer_ops(
        s, {ts.op0, ts.op1.value_or(AluOp::bypass), ts.reduce_dst ? ts.reduce_op : AluOp::bypass});
    require_integer(s, dst, ts.op0);
    require_integer(s, src, ts.op0);
    if (reduce_dst) require_integer(s, *reduce_dst, ts.op0);
    const IntFormat fmt = IntFormat::of(src.dtype());
    const auto arg0 = scalar_column_int(s, ts.arg0, parts, "arg0");
    const auto arg1 =
        ts.op1 ? scalar_column_int(s, ts.arg1, parts, "arg1") : std::vector<std::int64_t>(parts, 0);
    std::vector<std::int64_t> v, reduced(parts);
    for_partition_blocks(parts, whole, [&](std::uint32_t p0, std::uint32_t n) {
      load_rows(src, p0, n, v);
      for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t p = p0 + i;
        std::int64_t* x = v.data() + i * f;
        for (std::size_t j = 0; j < f; ++j) {
          x[j] = ts.reverse0 ? alu_i64(ts.op0, arg0[p], x[j], fmt)
                             : alu_i64(ts.op0, x[j], arg0[p], fmt);
          if (ts.op1)
            x[j] = ts.reverse1 ? alu_i64(*ts.op1, arg1[p], x[j], fmt)
                               : alu_i64(*ts.op1, x[j], arg1[p], fmt);
        }
        if (reduce_dst) reduced[p] = alu_i64_reduce(ts.reduce_op, x, f, fmt);
      }
      store_rows(dst, p0, n, v);
    });
    if (reduce_dst)
      for (std::uint32_t p = 0; p < parts; ++p)
        reduce_dst->store(p, &reduced[p]);
    return;
  }

  const auto arg0 = scalar_column(s, ts.arg0, parts, "arg0");
  const auto arg1 =
      ts.op1 ? scalar_column(s, ts.arg1, parts, "arg1") : std::vector<float>(parts, 0.0f);
  std::vector<float> v, reduced(parts);
  for_partition_blocks(parts, whole, [&](std::uint32_t p0, std::uint32_t n) {
    load_rows(src, p0, n, v);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint32_t p = p0 + i;
      float* x = v.data() + i * f;
      alu_f32_scalar(ts.op0, x, arg0[p], ts.reverse0, x, f);
      if (ts.op1) alu_f32_scalar(*ts.op1, x, arg1[p], ts.reverse1, x, f);
      // The reduction sees the fp32 results, before the cast to dst's dtype.
      if (reduce_dst) reduced[p] = alu_f32_reduce(ts.reduce_op, x, f);
    }
    store_rows(dst, p0, n, v);
  });
  // Written after dst, so a reduce_dst that overlaps dst holds the reduction.
  if (reduce_dst)
    for (std::uint32_t p = 0; p < parts; ++p)
      reduce_dst->store(p, &reduced[p]);
}

void run(const Site& s, const ScalarTensorTensor& st) {
  const Operand dst(s, st.dst, "dst"), a(s, st.a, "a"), b(s, st.b, "b");
  require_same_shape(s, dst, a);
  require_same_shape(s, dst, b);
  const std::uint32_t parts = dst.partitions();
  const std::size_t f = dst.free();
  const bool whole = dst.may_clobber_later_rows(a) || dst.may_clobber_later_rows(b);

  if (is_bitwise_op(st.op0) || is_bitwise_op(st.op1)) {
    reject_non_integer_ops(s, {st.op0, st.op1});
    const AluOp why = is_bitwise_op(st.op0) ? st.op0 : st.op1;
    for (const Operand* op : {&dst, &a, &b})
      require_integer(s, *op, why);
    const IntFormat fmt = IntFormat::of(a.dtype());
    const auto scalar = scalar_column_int(s, st.scalar, parts, "scalar");
    std::vector<std::int64_t> va, vb;
    for_partition_blocks(parts, whole, [&](std::uint32_t p0, std::uint32_t n) {
      load_rows(a, p0, n, va);
      load_rows(b, p0, n, vb);
      for (std::uint32_t i = 0; i < n; ++i)
        for (std::size_t j = i * f; j < (i + 1) * f; ++j)
          va[j] = alu_i64(st.op1, alu_i64(st.op0, va[j], scalar[p0 + i], fmt), vb[j], fmt);
      store_rows(dst, p0, n, va);
    });
    return;
  }

  const auto scalar = scalar_column(s, st.scalar, parts, "scalar");
  std::vector<float> va, vb;
  for_partition_blocks(parts, whole, [&](std::uint32_t p0, std::uint32_t n) {
    load_rows(a, p0, n, va);
    load_rows(b, p0, n, vb);
    for (std::uint32_t i = 0; i < n; ++i) {
      float* x = va.data() + i * f;
      alu_f32_scalar(st.op0, x, scalar[p0 + i], false, x, f);
      alu_f32_array(st.op1, x, vb.data() + i * f, x, f);
    }
    store_rows(dst, p0, n, va);
  });
}

// NKI/tensor_tensor_scan: per partition, r = (data0[i] op0 r) op1 data1[i] from r = initial,
// in fp32 (the engine casts its inputs to fp32 and computes in fp32); each r is cast to
// dst's dtype when stored, and the next step reads the fp32 r, not the stored value.
void run(const Site& s, const TensorTensorScan& ts) {
  const Operand dst(s, ts.dst, "dst"), d0(s, ts.data0, "data0"), d1(s, ts.data1, "data1");
  require_same_shape(s, dst, d0);
  require_same_shape(s, dst, d1);
  for (auto [role, op] : {std::pair{"op0", ts.op0}, std::pair{"op1", ts.op1}})
    if (is_bitwise_op(op))
      s.fail(role, std::string(alu_op_name(op)) +
                       " is a bitvec operator; tensor_tensor_scan takes arithmetic operators");
  const std::uint32_t parts = dst.partitions();
  const std::size_t f = dst.free();
  const bool whole = dst.may_clobber_later_rows(d0) || dst.may_clobber_later_rows(d1);
  const auto initial = scalar_column(s, ts.initial, parts, "initial");
  std::vector<float> v0, v1;
  for_partition_blocks(parts, whole, [&](std::uint32_t p0, std::uint32_t n) {
    load_rows(d0, p0, n, v0);
    load_rows(d1, p0, n, v1);
    for (std::uint32_t i = 0; i < n; ++i) {
      float r = initial[p0 + i];
      for (std::size_t j = i * f; j < (i + 1) * f; ++j) {
        const float t = ts.reverse0 ? alu_f32(ts.op0, r, v0[j]) : alu_f32(ts.op0, v0[j], r);
        r = ts.reverse1 ? alu_f32(ts.op1, v1[j], t) : alu_f32(ts.op1, t, v1[j]);
        v0[j] = r;
      }
    }
    store_rows(dst, p0, n, v0);
  });
}

// NKI/reciprocal: "casts the input data type to float32 and performs the reciprocal
// computation in float32 math"; the fp32 result is cast to dst's dtype when stored.
// IEEE fp32 division: 1/0 = +inf, 1/-0 = -inf, 1/inf = 0, NaN stays NaN.
void run(const Site& s, const Reciprocal& r) {
  const Operand dst(s, r.dst, "dst"), src(s, r.src, "src");
  require_same_shape(s, dst, src);
  const bool whole = dst.may_clobber_later_rows(src);
  std::vector<float> v;
  for_partition_blocks(dst.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
    load_rows(src, p0, n, v);
    for (float& x : v)
      x = 1.0f / x;
    store_rows(dst, p0, n, v);
  });
}

}  // namespace neuronsim::isa::sem
