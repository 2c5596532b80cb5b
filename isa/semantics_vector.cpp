// Vector/GpSimd ALU instructions: tensor_tensor, tensor_scalar, scalar_tensor_tensor.
// They compute in fp32 and cast on write; an instruction containing a bitwise or shift op
// computes in integers instead (exact; every tensor operand must be an integer dtype).
#include <optional>
#include <string>

#include "isa/alu.hpp"
#include "isa/semantics_ops.hpp"

namespace neuronsim::isa::sem {

namespace {

void reject_non_integer_ops(const Site& s, std::initializer_list<AluOp> ops) {
  for (AluOp op : ops)
    if (op == AluOp::divide || op == AluOp::pow)
      s.fail("op", std::string(alu_op_name(op)) +
                       " cannot be combined with bitwise ops (the instruction runs in integers)");
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

}  // namespace neuronsim::isa::sem
