// Reductions: along the free axis (tensor_reduce, and bn_stats / bn_aggr, NKI's batch-norm
// statistics) and across partitions (tensor_partition_reduce). In fp32 (bitvec ops in
// integers), elements taken in logical order.
#include <string>

#include "semantics/alu.hpp"
#include "semantics/ops.hpp"

namespace neuronsim::isa::sem {

void run(const Site& s, const TensorReduce& tr) {
  const Operand dst(s, tr.dst, "dst"), src(s, tr.src, "src");
  const AccessPattern& sp = src.pattern();
  if (tr.axes < 1 || tr.axes > sp.ndims)
    s.fail("axes", std::to_string(tr.axes) + " is not in [1, " + std::to_string(sp.ndims) +
                       "] (the free dims of src)");
  if (tr.op != AluOp::add && tr.op != AluOp::max && tr.op != AluOp::min && tr.op != AluOp::multiply)
    s.fail("op", std::string(alu_op_name(tr.op)) + " is not a reduction (add, max, min, multiply)");
  std::size_t group = 1;  // elements reduced into one result: the innermost `axes` dims
  for (int k = sp.ndims - tr.axes; k < sp.ndims; ++k)
    group *= sp.dims[k].size;
  const std::size_t outputs = group == 0 ? 0 : src.free() / group;
  if (dst.partitions() != src.partitions() || dst.free() != outputs)
    s.fail("dst", "is [" + std::to_string(dst.partitions()) + ", " + std::to_string(dst.free()) +
                      "] but reducing " + std::to_string(tr.axes) + " axes of src gives [" +
                      std::to_string(src.partitions()) + ", " + std::to_string(outputs) + "]");

  const bool whole = dst.may_clobber_later_rows(src);
  std::vector<float> in, out;
  for_partition_batches(src.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
    load_rows(src, p0, n, in);
    out.resize(n * outputs);
    alu_f32_reduce_groups(tr.op, in.data(), group, n * outputs, out.data());
    if (tr.negate)
      for (float& r : out)
        r = -r;
    store_rows(dst, p0, n, out);
  });
}

namespace {

// count, mean and sum of squared deviations (M2 = variance * count) of x[first],
// x[first+2], ...: two passes in fp32, so the mean is subtracted before squaring.
void moments_of_every_other(const float* x, std::size_t n, std::size_t first, float* out) {
  float count = 0.0f, sum = 0.0f;
  for (std::size_t j = first; j < n; j += 2) {
    sum += x[j];
    count += 1.0f;
  }
  const float mean = count > 0.0f ? sum / count : 0.0f;
  float m2 = 0.0f;
  for (std::size_t j = first; j < n; j += 2) {
    const float d = x[j] - mean;
    m2 += d * d;
  }
  out[0] = count;
  out[1] = mean;
  out[2] = m2;
}

}  // namespace

void run(const Site& s, const BnStats& bn) {
  const Operand dst(s, bn.dst, "dst"), src(s, bn.src, "src");
  if (dst.partitions() != src.partitions() || dst.free() != 6)
    s.fail("dst", "must be [" + std::to_string(src.partitions()) +
                      ", 6] (count, mean, variance*count of even then odd elements), is [" +
                      std::to_string(dst.partitions()) + ", " + std::to_string(dst.free()) + "]");
  const bool whole = dst.may_clobber_later_rows(src);
  const std::size_t f = src.free();
  std::vector<float> in, out;
  for_partition_blocks(src.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
    load_rows(src, p0, n, in);
    out.resize(n * 6);
    for (std::uint32_t i = 0; i < n; ++i) {
      moments_of_every_other(in.data() + i * f, f, 0, out.data() + i * 6);
      moments_of_every_other(in.data() + i * f, f, 1, out.data() + i * 6 + 3);
    }
    store_rows(dst, p0, n, out);
  });
}

void run(const Site& s, const BnAggr& bn) {
  const Operand dst(s, bn.dst, "dst"), src(s, bn.src, "src");
  if (src.free() == 0 || src.free() % 3 != 0)
    s.fail("src", "has " + std::to_string(src.free()) +
                      " elements per partition, not a whole number of (count, mean, "
                      "variance*count) triples");
  if (dst.partitions() != src.partitions() || dst.free() != 2)
    s.fail("dst", "must be [" + std::to_string(src.partitions()) + ", 2] (mean, variance), is [" +
                      std::to_string(dst.partitions()) + ", " + std::to_string(dst.free()) + "]");
  const bool whole = dst.may_clobber_later_rows(src);
  const std::size_t f = src.free();
  std::vector<float> in, out;
  for_partition_blocks(src.partitions(), whole, [&](std::uint32_t p0, std::uint32_t n) {
    load_rows(src, p0, n, in);
    out.resize(n * 2);
    for (std::uint32_t i = 0; i < n; ++i) {
      // Chan et al.'s parallel combination of (count, mean, M2), triple by triple.
      float count = 0.0f, mean = 0.0f, m2 = 0.0f;
      for (std::size_t t = 0; t < f; t += 3) {
        const float* g = in.data() + i * f + t;
        const float nb = g[0], mb = g[1], m2b = g[2];
        if (!(nb > 0.0f)) continue;  // an empty group (e.g. the odd half of one element)
        const float total = count + nb;
        const float delta = mb - mean;
        mean += delta * (nb / total);
        m2 += m2b + delta * delta * (count * nb / total);
        count = total;
      }
      out[i * 2] = mean;
      out[i * 2 + 1] = count > 0.0f ? m2 / count : 0.0f;  // population variance
    }
    store_rows(dst, p0, n, out);
  });
}

// NKI/tensor_partition_reduce: dst[0, j] = src[0, j] op src[1, j] op ... op src[P-1, j],
// folded in partition order. add and max compute in fp32; the bitvec ops act on the
// integer bit patterns (integer dtypes only, as every bitvec op: nki.isa.tensor_reduce).
void run(const Site& s, const PartitionReduce& pr) {
  const Operand dst(s, pr.dst, "dst"), src(s, pr.src, "src");
  if (dst.partitions() != 1 || dst.free() != src.free())
    s.fail("dst", "is [" + std::to_string(dst.partitions()) + ", " + std::to_string(dst.free()) +
                      "] but a reduction across the partitions of src gives [1, " +
                      std::to_string(src.free()) + "]");
  const std::uint32_t parts = src.partitions();
  const std::size_t f = src.free();
  if (parts == 0) s.fail("src", "has no partitions to reduce");
  if (is_bitwise_op(pr.op)) {
    if (pr.op != AluOp::bitwise_and && pr.op != AluOp::bitwise_or && pr.op != AluOp::bitwise_xor)
      s.fail("op", std::string(alu_op_name(pr.op)) + " is a shift, not a reduction");
    require_integer(s, src, pr.op);
    require_integer(s, dst, pr.op);
    const IntFormat fmt = IntFormat::of(src.dtype());
    std::vector<std::int64_t> in, out;
    load_rows(src, 0, parts, in);
    out.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(f));
    for (std::uint32_t p = 1; p < parts; ++p)
      for (std::size_t j = 0; j < f; ++j)
        out[j] = alu_i64(pr.op, out[j], in[p * f + j], fmt);
    store_rows(dst, 0, 1, out);
    return;
  }
  if (pr.op != AluOp::add && pr.op != AluOp::max)
    s.fail("op",
           std::string(alu_op_name(pr.op)) +
               " is not a partition reduction (add, max, bitwise_and, bitwise_or, bitwise_xor)");
  std::vector<float> in, out;
  load_rows(src, 0, parts, in);
  out.assign(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(f));
  for (std::uint32_t p = 1; p < parts; ++p)
    for (std::size_t j = 0; j < f; ++j)
      out[j] = alu_f32(pr.op, out[j], in[p * f + j]);
  store_rows(dst, 0, 1, out);
}

}  // namespace neuronsim::isa::sem
