// Validation rules of each opcode (reference section 3): operand shapes, memory spaces,
// dtypes and what an engine may do, from the NKI ISA reference: "NKI/x" below stands for
// https://awsdocs-neuron.readthedocs-hosted.com/en/latest/nki/api/generated/nki.isa.x.html
// (docs/isa-audit.md has the audit). Runs only on operands whose structure
// check_pattern() accepted.
#include <string>
#include <type_traits>
#include <variant>

#include "validate/detail.hpp"

namespace neuronsim::isa::validate_detail {

namespace {

// NKI/nc_matmul, "Data types": the input dtypes of a matmul.
// NKI nc_matmul, "Data types": fp8_e4m3, fp8_e5m2, bf16, fp16, tf32, fp32, and "Starting
// NeuronCore-v4, float8_e4m3fn (OCP FP8) is also supported" (a target without the dtype
// refuses it for every instruction: limits.fp8_e4m3fn).
bool is_matmul_input(DType t) {
  return t == DType::fp8_e4m3 || t == DType::fp8_e5m2 || t == DType::fp8_e4m3fn ||
         t == DType::bf16 || t == DType::fp16 || t == DType::tf32 || t == DType::fp32;
}
bool is_fp32_class(DType t) {
  return t == DType::tf32 || t == DType::fp32;
}

std::string name(DType t) {
  return std::string(dtype_name(t));
}
std::string name(AluOp op) {
  return std::string(alu_op_name(op));
}
std::string name(MemSpace s) {
  return std::string(mem_space_name(s));
}
std::string name(Engine e) {
  return std::string(engine_name(e));
}
std::string num(std::uint64_t v) {
  return std::to_string(v);
}

class OpcodeChecker {
 public:
  OpcodeChecker(const Kernel& k, const params::TargetLimits& limits, Engine engine,
                InstrReporter& report)
      : k_(k), limits_(limits), engine_(engine), report_(report) {}

  void operator()(const Matmul& mm) {
    in_space("dst", mm.dst, MemSpace::psum);
    // NKI/nc_matmul, "Data types": fp32 on NeuronCore-v2/v3; fp32 or bf16 from v4.
    const bool bf16_dst = mm.dst.dtype == DType::bf16 && limits_.matmul_bf16_dst;
    if (mm.dst.dtype != DType::fp32 && !bf16_dst)
      problem("dst is " + name(mm.dst.dtype) + ", but matmul accumulates fp32 in psum" +
              (mm.dst.dtype == DType::bf16
                   ? " (a bf16 dst is NeuronCore-v4's: tensor.matmul_bf16_dst is false)"
                   : ""));
    in_space("stationary", mm.stationary, MemSpace::sbuf);
    in_space("moving", mm.moving, MemSpace::sbuf);
    const std::uint64_t k = mm.stationary.partitions, m = mm.m_cols(), n = mm.n_cols();
    if (mm.perf_mode == MatmulPerfMode::double_row) check_double_row(mm);
    if (mm.moving.partitions != k)
      problem("stationary and moving partition counts (contraction K) differ: " + num(k) + " vs " +
              num(mm.moving.partitions));
    if (k > limits_.matmul_max_k)
      problem("contraction K = " + num(k) + " exceeds matmul_max_k " + num(limits_.matmul_max_k));
    // In double_row, M and N are per contraction row: half the free sizes.
    const std::string per_row = mm.perf_mode == MatmulPerfMode::double_row ? " / 2" : "";
    if (m > limits_.matmul_max_m)
      problem("M = stationary free size" + per_row + " " + num(m) + " exceeds matmul_max_m " +
              num(limits_.matmul_max_m));
    // matmul_max_n fp32 elements are one PSUM bank (twice as many bf16 ones), and N may
    // span matmul_psum_banks banks (the nc_matmul page: one bank on v2/v3, all 8 from v4).
    const std::uint64_t max_n =
        std::uint64_t{limits_.matmul_max_n} * (bf16_dst ? 2 : 1) * limits_.matmul_psum_banks;
    if (n > max_n)
      problem("N = moving free size" + per_row + " " + num(n) + " exceeds matmul_max_n " +
              num(limits_.matmul_max_n) + (bf16_dst ? " x 2 for a bf16 dst" : "") +
              (limits_.matmul_psum_banks > 1
                   ? " x matmul_psum_banks " + num(limits_.matmul_psum_banks)
                   : std::string()));
    if (mm.dst.partitions != m || mm.dst.free_elems() != n)
      problem("dst " + fmt_shape(mm.dst) + " is not [M,N] = [" + num(m) + "," + num(n) + "]");
    check_matmul_dtypes(mm.stationary.dtype, mm.moving.dtype);
  }

  void operator()(const Transpose& t) {
    if (engine_ == Engine::tensor) {
      // Through the systolic array, up to tensor_transpose_max square (reference section 3).
      in_space("src", t.src, MemSpace::sbuf);
      in_space("dst", t.dst, MemSpace::psum);
      const std::uint64_t edge = limits_.tensor_transpose_max;
      if (t.src.partitions > edge || t.src.free_elems() > edge)
        problem("src " + fmt_shape(t.src) + " exceeds the tensor engine's " + num(edge) + "x" +
                num(edge) + " transpose (tensor_transpose_max)");
    } else if (engine_ == Engine::vector) {
      const std::uint64_t edge = limits_.vector_transpose_max;
      if (t.src.partitions > edge || t.src.free_elems() > edge)
        problem("src " + fmt_shape(t.src) + " exceeds the vector engine's " + num(edge) + "x" +
                num(edge) + " transpose (vector_transpose_max)");
    }
    if (t.dst.partitions != t.src.free_elems() || t.dst.free_elems() != t.src.partitions)
      problem("dst " + fmt_shape(t.dst) + " is not src " + fmt_shape(t.src) + " transposed");
    // NKI/nc_transpose, "Data types": dst has src's dtype. Through the array, a v2 result
    // leaves the fp32 accumulator (bit-accurate transpose mode, which keeps the dtype, is
    // v3+: nki/about/trainium2_arch.rst, "Built-in Transpose Support"), so fp32 is allowed
    // there too.
    const bool array_fp32 = engine_ == Engine::tensor && t.dst.dtype == DType::fp32;
    if (t.dst.dtype != t.src.dtype && !array_fp32)
      problem("dst is " + name(t.dst.dtype) + " but src is " + name(t.src.dtype) +
              "; a transpose keeps the dtype" +
              (engine_ == Engine::tensor ? " (or writes fp32 through the array)" : ""));
  }

  void operator()(const Activation& a) {
    same_shape("dst", a.dst, "src", a.src);
    // NKI/activation, "Data types": a scale vector is fp32, a bias fp32, fp16 or bf16.
    if (const auto* scale = std::get_if<AccessPattern>(&a.scale)) {
      per_partition("scale", *scale, a.src.partitions);
      if (scale->dtype != DType::fp32)
        problem("scale is " + name(scale->dtype) + "; an activation's scale vector is fp32");
    }
    if (a.bias) {
      per_partition("bias", *a.bias, a.src.partitions);
      const DType b = a.bias->dtype;
      if (b != DType::fp32 && b != DType::fp16 && b != DType::bf16)
        problem("bias is " + name(b) + "; an activation's bias is fp32, fp16 or bf16");
    }
    if (a.reduce_dst) per_partition("reduce_dst", *a.reduce_dst, a.src.partitions);
  }

  void operator()(const TensorTensor& t) {
    same_shape("dst", t.dst, "a", t.a);
    same_shape("dst", t.dst, "b", t.b);
    // Reference section 3: tensor_tensor may not read both inputs from psum.
    if (t.a.space == MemSpace::psum && t.b.space == MemSpace::psum)
      problem("a and b are both in psum; tensor_tensor reads at most one input from psum");
    integer_only(t.op, {{"dst", &t.dst}, {"a", &t.a}, {"b", &t.b}});
    // NKI/tensor_tensor: power "runs on the GpSimd Engine", and the Vector Engine is the
    // one that treats bitvec operands as bit patterns.
    if (t.op == AluOp::pow && engine_ != Engine::gpsimd)
      problem("op pow runs on the gpsimd engine, not the " + name(engine_) + " engine");
    if (is_bitwise_op(t.op) && engine_ != Engine::vector)
      problem("op " + name(t.op) + " is a bitvec operator, which only the vector engine runs");
  }

  void operator()(const TensorScalar& t) {
    same_shape("dst", t.dst, "src", t.src);
    if (const auto* arg = std::get_if<AccessPattern>(&t.arg0))
      per_partition("arg0", *arg, t.src.partitions);
    if (t.op1)
      if (const auto* arg = std::get_if<AccessPattern>(&t.arg1))
        per_partition("arg1", *arg, t.src.partitions);
    integer_only(t.op0, {{"dst", &t.dst}, {"src", &t.src}});
    if (t.op1) integer_only(*t.op1, {{"dst", &t.dst}, {"src", &t.src}});
    if (t.reduce_dst) {
      per_partition("reduce_dst", *t.reduce_dst, t.src.partitions);
      if (!is_reduction_op(t.reduce_op))
        problem("reduce_op " + name(t.reduce_op) + " is not a reduction (add, max, min, multiply)");
    }
    tensor_scalar_engine_rules(t);
  }

  // NKI/tensor_scalar: op0 and op1 are both bitvec or both arithmetic, and bitvec
  // operators run on the Vector Engine only; the Scalar Engine runs only the pairs
  // (multiply, add), (multiply, none), (add, none). NKI/tensor_scalar_reduce: a reduction
  // runs on the Vector Engine, with one arithmetic operator and no reverse0 yet.
  void tensor_scalar_engine_rules(const TensorScalar& t) {
    const bool bit0 = is_bitwise_op(t.op0), bit1 = t.op1 && is_bitwise_op(*t.op1);
    const bool bypass = t.op0 == AluOp::bypass || t.op1 == AluOp::bypass;
    if (t.op1 && bit0 != bit1 && !bypass)
      problem("op0 " + name(t.op0) + " and op1 " + name(*t.op1) +
              " mix a bitvec and an arithmetic operator; both must be of one kind");
    if ((bit0 || bit1) && engine_ != Engine::vector)
      problem("bitvec operators run on the vector engine only, not the " + name(engine_) +
              " engine");
    if (engine_ == Engine::scalar && !bit0 && !bit1) {
      const bool pair_ok = (t.op0 == AluOp::multiply && (!t.op1 || *t.op1 == AluOp::add)) ||
                           (t.op0 == AluOp::add && !t.op1);
      if (!pair_ok)
        problem("op0 " + name(t.op0) + ", op1 " + (t.op1 ? name(*t.op1) : "none") +
                ": the scalar engine runs only (multiply, add), (multiply, none) and (add, none)");
    }
    if (t.reduce_dst) {
      if (engine_ != Engine::vector)
        problem("a tensor_scalar reduction runs on the vector engine, not the " + name(engine_) +
                " engine");
      if (t.op1) problem("a tensor_scalar with a reduction has one operator (op1 is given)");
      if (bit0)
        problem("op0 " + name(t.op0) + " is a bitvec operator; a reduction needs op0 arithmetic");
      if (t.reverse0)
        problem("reverse0 is not supported with a reduction (NKI tensor_scalar_reduce)");
    }
  }

  void operator()(const ScalarTensorTensor& t) {
    same_shape("dst", t.dst, "a", t.a);
    same_shape("dst", t.dst, "b", t.b);
    if (const auto* arg = std::get_if<AccessPattern>(&t.scalar))
      per_partition("scalar", *arg, t.a.partitions);
    // NKI/scalar_tensor_tensor: "Bitvec operators are not supported", and data (a) and
    // operand1 (b) "cannot both reside in PSUM".
    for (auto [role, op] : {std::pair{"op0", t.op0}, std::pair{"op1", t.op1}})
      if (is_bitwise_op(op))
        problem(std::string(role) + " " + name(op) +
                " is a bitvec operator; scalar_tensor_tensor takes arithmetic operators only");
    if (t.a.space == MemSpace::psum && t.b.space == MemSpace::psum)
      problem("a and b are both in psum; scalar_tensor_tensor reads at most one of them from psum");
  }

  // NKI/tensor_tensor_scan: data0 and data1 have the same partitions and elements per
  // partition, and "cannot both reside in PSUM"; initial is a scalar or one element per
  // partition; op0 and op1 are arithmetic operators (the engine computes in fp32).
  void operator()(const TensorTensorScan& t) {
    same_shape("dst", t.dst, "data0", t.data0);
    same_shape("dst", t.dst, "data1", t.data1);
    if (const auto* initial = std::get_if<AccessPattern>(&t.initial))
      per_partition("initial", *initial, t.data0.partitions);
    for (auto [role, op] : {std::pair{"op0", t.op0}, std::pair{"op1", t.op1}})
      if (is_bitwise_op(op))
        problem(std::string(role) + " " + name(op) +
                " is a bitvec operator; tensor_tensor_scan takes arithmetic operators only");
    if (t.data0.space == MemSpace::psum && t.data1.space == MemSpace::psum)
      problem("data0 and data1 are both in psum; tensor_tensor_scan reads at most one from psum");
  }

  void operator()(const TensorReduce& t) {
    if (!is_reduction_op(t.op))
      problem("op " + name(t.op) + " is not a reduction (add, max, min, multiply)");
    if (t.axes < 1 || t.axes > t.src.ndims) {
      problem("axes " + num(t.axes) + " is not in 1.." + num(t.src.ndims) + " (src's free dims)");
      return;
    }
    std::uint64_t kept = 1;  // the outer dims survive the reduction
    for (int i = 0; i < t.src.ndims - t.axes; ++i)
      kept *= t.src.dims[i].size;
    if (t.dst.partitions != t.src.partitions || t.dst.free_elems() != kept)
      problem("dst " + fmt_shape(t.dst) + " is not [" + num(t.src.partitions) + "," + num(kept) +
              "] (src's partitions x its dims outside the reduced axes)");
  }

  void operator()(const TensorCopy& t) { same_shape("dst", t.dst, "src", t.src); }
  void operator()(const Memset&) {}
  void operator()(const Iota&) {}

  void operator()(const Select& s) {
    same_shape("dst", s.dst, "predicate", s.predicate);
    same_shape("dst", s.dst, "on_true", s.on_true);
    same_shape("dst", s.dst, "on_false", s.on_false);
    // NKI/select_reduce and NKI/tensor_copy_predicated: the predicate and the selected
    // data may not both be in PSUM.
    if (s.predicate.space == MemSpace::psum && s.on_true.space == MemSpace::psum)
      problem("predicate and on_true are both in psum; select reads at most one of them from psum");
  }

  void operator()(const AffineSelect& s) {
    same_shape("dst", s.dst, "src", s.src);
    if (!is_comparison_op(s.cmp))
      problem("cmp " + name(s.cmp) + " is not a comparison (is_equal, not_equal, is_ge, ...)");
  }

  void operator()(const BnStats& b) {
    if (b.src.free_elems() > limits_.bn_stats_max_free)
      problem("src free size " + num(b.src.free_elems()) + " exceeds bn_stats_max_free " +
              num(limits_.bn_stats_max_free));
    if (b.dst.partitions != b.src.partitions || b.dst.free_elems() != 6)
      problem("dst " + fmt_shape(b.dst) + " is not [" + num(b.src.partitions) +
              ",6] (bn_stats writes 6 values per partition)");
  }

  void operator()(const BnAggr& b) {
    if (b.src.free_elems() % 3 != 0)
      problem("src free size " + num(b.src.free_elems()) +
              " is not a multiple of 3 (count, mean, variance triples)");
    if (b.dst.partitions != b.src.partitions || b.dst.free_elems() != 2)
      problem("dst " + fmt_shape(b.dst) + " is not [" + num(b.src.partitions) +
              ",2] (bn_aggr writes mean and variance per partition)");
  }

  void operator()(const DmaCopy& d) {
    if (d.indexed())
      dma_indirect(d);
    else if (d.dst.elems() != d.src.elems())
      problem("dst has " + num(d.dst.elems()) + " elements, src " + num(d.src.elems()) +
              "; a dma_copy moves equal counts");
    // Reference section 3: DMA moves HBM <-> SBUF and SBUF <-> SBUF.
    if (d.dst.space == MemSpace::psum || d.src.space == MemSpace::psum)
      problem("dma_copy cannot access psum (it moves between hbm and sbuf)");
    if (d.queue >= k_.queues.size())
      problem("queue index " + num(d.queue) + " is out of range (the kernel has " +
              num(k_.queues.size()) + " queues)");
    // NKI/dma_copy: any dtypes, also with dst_rmw_op (the add runs in fp32 and the result
    // is cast to dst's dtype), so accumulate takes an integer dst too.
    if (d.transpose) dma_transpose(d);
    // NKI/dma_copy, oob_mode: "how to handle out-of-bounds (oob) array indices during
    // indirect access operations"; "If dst_rmw_op is specified, only oob_mode=oob_mode.error
    // is allowed".
    if (d.oob_skip && !d.indexed())
      problem(
          "oob_skip: only an indirect dma_copy (src_index or dst_index) checks its rows "
          "when it runs; a direct transfer's pattern is checked here");
    if (d.oob_skip && d.accumulate)
      problem(
          "oob_skip: an accumulating dma_copy (dst_rmw_op) allows only the error mode "
          "(NKI dma_copy)");
    // NKI's DGE reference: none "cannot handle dynamic (runtime-computed) addresses or
    // indices"; swdge "is the only mode that supports indirect (gather/scatter) operations".
    if (d.prebuilt_descriptors && d.indexed())
      problem(
          "prebuilt_descriptors: an indirect dma_copy's descriptors depend on its runtime "
          "indices, so software DGE makes them (NKI's DGE reference)");
  }

  // A gather (src_index) or scatter (dst_index): NKI/dma_copy, "When sw_dge is selected,
  // nisa.dma_copy can also perform a gather or scatter operation, using a list of dynamic
  // indices from SBUF" (software DGE: GpSimd makes the descriptors, nki-dge.rst).
  void dma_indirect(const DmaCopy& d) {
    const bool gather = d.src_index.has_value();
    const char* const idx_name = gather ? "src_index" : "dst_index";
    const AccessPattern& table = gather ? d.src : d.dst;  // the rows the indices name
    const AccessPattern& tile = gather ? d.dst : d.src;   // one row per index
    const AccessPattern& idx = *d.index();
    if (d.src_index && d.dst_index)
      problem("src_index and dst_index are both given; an indirect dma_copy indexes one side");
    if (engine_ != Engine::gpsimd)
      problem(std::string(idx_name) +
              ": an indirect dma_copy is issued by gpsimd (software DGE "
              "makes its descriptors, NKI dma_copy), not " +
              name(engine_));
    // NKI/dma_transpose, "DMA Indirect Transpose": a gather whose rows land transposed
    // (dma_gather_transpose, software DGE); dma_transpose() checks the rest.
    if (d.transpose && !gather)
      problem("dst_index: an indirect DMA transpose gathers (src_index); it does not scatter");
    in_space(idx_name, idx, MemSpace::sbuf);
    if (idx.dtype != DType::int32 && idx.dtype != DType::uint32)
      problem(std::string(idx_name) + " is " + name(idx.dtype) +
              "; row indices are int32 or uint32");
    // One index per row moved: per partition of the tile, or, transposed, per column of dst.
    const std::uint64_t count = d.transpose ? tile.free_elems() : tile.partitions;
    if (idx.partitions != count || idx.free_elems() != 1)
      problem(std::string(idx_name) + " " + fmt_shape(idx) + " is not [" + num(count) +
              ",1] (one row index per " +
              (d.transpose ? "column of dst"
               : gather    ? "partition of dst"
                           : "partition of src") +
              ")");
    if (table.space != MemSpace::hbm)
      problem(std::string(gather ? "src" : "dst") + " is in " + name(table.space) +
              "; an indirect dma_copy indexes rows of an hbm tensor");
    if (tile.space != MemSpace::sbuf)
      problem(std::string(gather ? "dst" : "src") + " is in " + name(tile.space) +
              "; an indirect dma_copy moves rows to or from sbuf");
    const std::uint64_t row = d.transpose ? tile.partitions : tile.free_elems();
    if (table.free_elems() != row)
      problem(std::string(gather ? "src" : "dst") + " rows of " + num(table.free_elems()) +
              " elements differ from " + (gather ? "dst" : "src") + "'s " + num(row) +
              (d.transpose ? " partitions (a row lands as a column)" : "") +
              "; an indirect dma_copy moves whole rows");
  }

  // The DMA engine's transpose (NKI/dma_transpose; nki-arch-v3, DMA transpose).
  void dma_transpose(const DmaCopy& d) {
    // NKI/dma_transpose is relevant for Trn2 and Trn3 (its hardware DGE transpose needs
    // NeuronCore-v3 or newer): dma.transpose says whether the target's engines can.
    if (!limits_.dma_transpose)
      problem(
          "transpose: this target's DMA engines do not transpose (nisa.dma_transpose is "
          "NeuronCore-v3 or newer: Trn2, Trn3); transpose on the Tensor engine instead");
    // NKI/dma_transpose, "dtype is 2 bytes"; the engine moves the bits, it does not cast.
    if (dtype_size(d.src.dtype) != 2)
      problem("transpose: src is " + name(d.src.dtype) +
              "; the DMA engine transposes 2-byte dtypes (bf16, fp16, int16, uint16)");
    if (d.dst.dtype != d.src.dtype)
      problem("transpose: dst is " + name(d.dst.dtype) + " but src is " + name(d.src.dtype) +
              "; a DMA transpose does not cast");
    // nki-arch-v3 gives the rates HBM to SBUF and SBUF to SBUF: the destination is SBUF.
    if (d.dst.space != MemSpace::sbuf)
      problem("transpose: dst is in " + name(d.dst.space) +
              "; a DMA transpose writes sbuf (from hbm or sbuf)");
    if (d.accumulate) problem("transpose: a DMA transpose does not accumulate");
    // The rows transposed: src's, or a gather's, one per index (dma_indirect checks those).
    if (d.src_index) return;
    if (d.dst.partitions != d.src.free_elems() || d.dst.free_elems() != d.src.partitions)
      problem("transpose: dst " + fmt_shape(d.dst) + " is not src " + fmt_shape(d.src) +
              " transposed ([" + num(d.src.free_elems()) + "," + num(d.src.partitions) + "])");
  }

  void operator()(const Nop&) {}

  // NKI/reciprocal: "The partition dimension size of input data and output dst tiles must
  // be the same ... The number of elements per partition of dst must match that of data";
  // both may be in SBUF or PSUM, any dtype (computed in fp32).
  void operator()(const Reciprocal& r) { same_shape("dst", r.dst, "src", r.src); }

  // NKI/tensor_partition_reduce: "the reduction operator (add, max, bitwise_or,
  // bitwise_and)" (bitwise_xor in the current page); the result is one partition of src's
  // free size. Bitvec operators take integer dtypes (NKI/tensor_reduce, "Data types").
  void operator()(const PartitionReduce& t) {
    const AluOp op = t.op;
    if (op != AluOp::add && op != AluOp::max && op != AluOp::bitwise_and &&
        op != AluOp::bitwise_or && op != AluOp::bitwise_xor)
      problem("op " + name(op) +
              " is not a partition reduction (add, max, bitwise_and, bitwise_or, bitwise_xor)");
    integer_only(op, {{"dst", &t.dst}, {"src", &t.src}});
    if (t.dst.partitions != 1 || t.dst.free_elems() != t.src.free_elems())
      problem("dst " + fmt_shape(t.dst) + " is not [1," + num(t.src.free_elems()) +
              "] (one partition of src's free size)");
  }

  // NKI/max8: "The number of elements read per partition must be between 8 and 16,384";
  // dst is [par_dim, 8]. NKI/nc_find_index8: data likewise, vals 8 per partition, dst
  // [par_dim, 8] in uint16 or uint32. NKI/nc_match_replace8: data at most 16,384 per
  // partition, vals 8, dst data's shape, dst_idx [par_dim, 8] indices.
  void operator()(const Max8& m) {
    top8_data("src", m.src, true);
    eight("dst", m.dst, m.src.partitions);
  }
  void operator()(const FindIndex8& f) {
    top8_data("data", f.data, true);
    eight("vals", f.vals, f.data.partitions);
    eight("dst", f.dst, f.data.partitions);
    if (f.dst.dtype != DType::uint16 && f.dst.dtype != DType::uint32)
      problem("dst is " + name(f.dst.dtype) + "; nc_find_index8 writes uint16 or uint32 indices");
  }
  void operator()(const MatchReplace8& m) {
    top8_data("data", m.data, false);
    same_shape("dst", m.dst, "data", m.data);
    eight("vals", m.vals, m.data.partitions);
    if (m.dst_idx) {
      eight("dst_idx", *m.dst_idx, m.data.partitions);
      if (m.dst_idx->dtype != DType::uint16 && m.dst_idx->dtype != DType::uint32)
        problem("dst_idx is " + name(m.dst_idx->dtype) + "; indices are uint16 or uint32");
    }
  }

  // NKI/quantize_mx. "Available only on NeuronCore-v4 and newer"; "Memory types": all in
  // SBUF; "Data types": src float16 or bfloat16, dst float8_e5m2_x4 or float8_e4m3fn_x4,
  // dst_scale float8_e8m0fnu or uint8; "Tile size": src partitions a multiple of 32 and at
  // most 128, its free size a multiple of 4, dst [P, F/4], dst_scale 4 partitions when src
  // has 32, else src's (one scale per 8 x 4 group: F/4 per partition).
  void operator()(const QuantizeMx& q) {
    mx_available("quantize_mx");
    in_space("src", q.src, MemSpace::sbuf);
    in_space("dst", q.dst, MemSpace::sbuf);
    in_space("dst_scale", q.dst_scale, MemSpace::sbuf);
    if (q.src.dtype != DType::bf16 && q.src.dtype != DType::fp16)
      problem("src is " + name(q.src.dtype) + "; quantize_mx quantizes float16 or bfloat16");
    if (!is_packed_x4(q.dst.dtype))
      problem("dst is " + name(q.dst.dtype) +
              "; quantize_mx writes a 4-packed MX type (fp8_e5m2_x4, fp8_e4m3fn_x4, "
              "fp4_e2m1fn_x4)");
    mx_scale_dtype("dst_scale", q.dst_scale);
    const std::uint64_t p = q.src.partitions, f = q.src.free_elems();
    mx_partitions("src", p);
    if (f % MatmulMx::kLanes != 0)
      return problem("src free size " + num(f) +
                     " is not a multiple of 4 (quantize_mx packs 4 values per dst element)");
    if (q.dst.partitions != p || q.dst.free_elems() * MatmulMx::kLanes != f)
      problem("dst " + fmt_shape(q.dst) + " is not [P, F/4] = [" + num(p) + "," +
              num(f / MatmulMx::kLanes) + "] for src " + fmt_shape(q.src));
    mx_scale_shape("dst_scale", q.dst_scale, p, f / MatmulMx::kLanes);
  }

  // NKI/nc_matmul_mx. "Available only on NeuronCore-v4 and newer"; "Memory types": inputs
  // and scales in SBUF, dst in PSUM; "Data types": stationary and moving float8_e5m2_x4 or
  // float8_e4m3fn_x4 or float4_e2m1fn_x4 (four OCP fp4 lanes in 16 bits), scales uint8 (or e8m0,
  // quantize_mx's type), dst float32 or bfloat16; "Tile size": the same partitions, a
  // multiple of 32 and at most 128, stationary free size even and at most 128, moving free
  // size at most 4096 with an fp32 dst or 8192 with bf16 (8 PSUM banks, matmul_psum_banks); the
  // scales as quantize_mx's.
  void operator()(const MatmulMx& mm) {
    mx_available("nc_matmul_mx");
    in_space("dst", mm.dst, MemSpace::psum);
    for (auto [role, ap] :
         {std::pair{"stationary", &mm.stationary}, std::pair{"moving", &mm.moving},
          std::pair{"stationary_scale", &mm.stationary_scale},
          std::pair{"moving_scale", &mm.moving_scale}})
      in_space(role, *ap, MemSpace::sbuf);
    for (auto [role, ap] :
         {std::pair{"stationary", &mm.stationary}, std::pair{"moving", &mm.moving}})
      if (!is_packed_x4(ap->dtype))
        problem(std::string(role) + " is " + name(ap->dtype) +
                "; nc_matmul_mx multiplies 4-packed MX data (fp8_e5m2_x4, fp8_e4m3fn_x4, "
                "fp4_e2m1fn_x4)");
    mx_scale_dtype("stationary_scale", mm.stationary_scale);
    mx_scale_dtype("moving_scale", mm.moving_scale);
    if (mm.dst.dtype != DType::fp32 && mm.dst.dtype != DType::bf16)
      problem("dst is " + name(mm.dst.dtype) + "; nc_matmul_mx writes float32 or bfloat16");
    const std::uint64_t k = mm.stationary.partitions, m = mm.stationary.free_elems(),
                        n = mm.moving.free_elems();
    if (mm.moving.partitions != k)
      problem("stationary and moving partition counts differ: " + num(k) + " vs " +
              num(mm.moving.partitions));
    mx_partitions("stationary", k);
    if (k > limits_.matmul_max_k)
      problem("stationary partitions " + num(k) + " exceed matmul_max_k " +
              num(limits_.matmul_max_k));
    if (m % 2 != 0 || m > limits_.matmul_max_m)
      problem("stationary free size " + num(m) + " must be even and at most matmul_max_m " +
              num(limits_.matmul_max_m));
    // matmul_max_n fp32 elements are one PSUM bank (512 fp32, 1024 bf16), over
    // matmul_psum_banks banks: the page's 4096 fp32 or 8192 bf16, the entire PSUM.
    const std::uint64_t max_n = std::uint64_t{limits_.matmul_max_n} * 4 / dtype_size(mm.dst.dtype) *
                                limits_.matmul_psum_banks;
    if (n > max_n)
      problem("moving free size " + num(n) + " exceeds " + num(max_n) + " for a " +
              name(mm.dst.dtype) + " dst (matmul_max_n fp32 elements per PSUM bank x " +
              "matmul_psum_banks " + num(limits_.matmul_psum_banks) + ")");
    if (mm.dst.partitions != m || mm.dst.free_elems() != n)
      problem("dst " + fmt_shape(mm.dst) + " is not [M,N] = [" + num(m) + "," + num(n) + "]");
    mx_scale_shape("stationary_scale", mm.stationary_scale, k, m);
    mx_scale_shape("moving_scale", mm.moving_scale, mm.moving.partitions, n);
  }

  // NKI/dropout: prob "a scalar or a tile of shape (data.shape[0], 1)"; with integer data,
  // prob is fp32 and dst keeps data's dtype ("The output data type dst.dtype must match
  // the input data type data.dtype" in the current page, for every dtype there); a
  // probability immediate lies in [0, 1] (1.0 drops everything, 0.0 keeps everything).
  void operator()(const Dropout& d) {
    same_shape("dst", d.dst, "src", d.src);
    if (const auto* prob = std::get_if<AccessPattern>(&d.prob)) {
      per_partition("prob", *prob, d.src.partitions);
      if (is_integer(prob->dtype))
        problem("prob is " + name(prob->dtype) + "; a drop probability is a float");
      else if (is_integer(d.src.dtype) && prob->dtype != DType::fp32)
        problem("prob is " + name(prob->dtype) + "; with integer data (" + name(d.src.dtype) +
                ") it must be fp32");
    } else {
      const float p = std::get<float>(d.prob);
      if (!(p >= 0.0f && p <= 1.0f))
        problem("prob " + std::to_string(p) + " is not a probability in [0, 1]");
    }
    if (is_integer(d.src.dtype) && d.dst.dtype != d.src.dtype)
      problem("dst is " + name(d.dst.dtype) + " but src is " + name(d.src.dtype) +
              "; dropout of integer data keeps its dtype");
  }

 private:
  struct Named {
    const char* role;
    const AccessPattern* ap;
  };

  void problem(const std::string& reason) { report_.problem(reason); }

  void in_space(const char* role, const AccessPattern& ap, MemSpace space) {
    if (ap.space != space)
      problem(std::string(role) + " must be in " + name(space) + ", not " + name(ap.space));
  }

  void same_shape(const char* role_a, const AccessPattern& a, const char* role_b,
                  const AccessPattern& b) {
    if (a.partitions != b.partitions || a.free_elems() != b.free_elems())
      problem(std::string(role_a) + " " + fmt_shape(a) + " and " + role_b + " " + fmt_shape(b) +
              " differ in shape");
  }

  // A per-partition operand: one element in each of the instruction's partitions.
  void per_partition(const char* role, const AccessPattern& ap, std::uint32_t partitions) {
    if (ap.partitions != partitions || ap.free_elems() != 1)
      problem(std::string(role) + " " + fmt_shape(ap) + " is not a [" + num(partitions) +
              ",1] per-partition vector");
  }

  // The pages' bound on the data of the top-8 instructions: 16,384 elements per partition
  // (and at least 8 where the page says "between 8 and 16,384").
  static constexpr std::uint64_t kTop8MaxFree = 16384;
  void top8_data(const char* role, const AccessPattern& ap, bool at_least_eight) {
    const std::uint64_t n = ap.free_elems();
    if (n > kTop8MaxFree || (at_least_eight && n < 8))
      problem(std::string(role) + " has " + num(n) + " elements per partition; " +
              (at_least_eight ? "between 8 and 16384" : "at most 16384") + " are allowed");
  }
  void eight(const char* role, const AccessPattern& ap, std::uint32_t partitions) {
    if (ap.partitions != partitions || ap.free_elems() != 8)
      problem(std::string(role) + " " + fmt_shape(ap) + " is not [" + num(partitions) + ",8]");
  }

  void integer_only(AluOp op, std::initializer_list<Named> operands) {
    if (!is_bitwise_op(op)) return;
    for (const Named& x : operands)
      if (!is_integer(x.ap->dtype))
        problem("op " + name(op) + " needs integer dtypes, but " + x.role + " is " +
                name(x.ap->dtype));
  }

  // Both MX pages: "Available only on NeuronCore-v4 and newer" (tensor.mx_speedup 0 on the
  // generations before).
  void mx_available(const char* page) {
    if (limits_.mx_speedup == 0)
      problem(std::string(page) + " is not available on this target (NKI " + page +
              ": available only on NeuronCore-v4 and newer; tensor.mx_speedup is 0)");
  }
  void mx_scale_dtype(const char* role, const AccessPattern& ap) {
    if (ap.dtype != DType::fp8_e8m0 && ap.dtype != DType::uint8)
      problem(std::string(role) + " is " + name(ap.dtype) +
              "; MX scales are float8_e8m0fnu (fp8_e8m0) or uint8");
  }
  // NKI/quantize_mx, "Tile size": "a multiple of 32 and must not exceed 128" (the quadrant).
  void mx_partitions(const char* role, std::uint64_t p) {
    constexpr std::uint64_t kMaxPartitions = 4 * kMxQuadrantPartitions;  // the page's 128
    if (p == 0 || p % kMxQuadrantPartitions != 0 || p > kMaxPartitions)
      problem(std::string(role) + " has " + num(p) +
              " partitions; MX data spans whole 32-partition quadrants (32, 64, 96 or 128)");
  }
  // A scale tile of data with p partitions and f packed elements per partition: 4 rows
  // (one per 8-partition group) when the data is one quadrant, else the data's partitions
  // (each quadrant's 4 rows at its start, the rest not written); one scale per element.
  void mx_scale_shape(const char* role, const AccessPattern& ap, std::uint64_t p, std::uint64_t f) {
    const std::uint64_t rows = kMxQuadrantPartitions / kMxGroupPartitions;  // 4 per quadrant
    const bool ok_rows =
        ap.partitions == p || (p == kMxQuadrantPartitions && ap.partitions == rows);
    if (!ok_rows || ap.free_elems() != f)
      problem(std::string(role) + " " + fmt_shape(ap) + " is not [" +
              (p == kMxQuadrantPartitions ? "4 or 32" : num(p)) + "," + num(f) +
              "]: one scale per 8 x 4 group, the quadrant layout of NKI quantize_mx");
  }

  // NKI/nc_matmul, "Data types": the inputs may differ in dtype, except that a tf32 or
  // fp32 input needs a tf32 or fp32 partner.
  // perf_mode double_row. NKI nc_matmul, "Performance mode": "On NeuronCore-v2, performance
  // mode is not supported. On NeuronCore-v3 and NeuronCore-v4, Tensor Engine supports FP8
  // double performance mode"; NKI Trainium2 architecture guide, "Double FP8 Matmul
  // Performance": FP8_E4/FP8_E5 inputs (mixing allowed), "the second dimension (the most
  // major free dimension) of both input tensors must be two".
  void check_double_row(const Matmul& mm) {
    if (limits_.matmul_double_row_speedup == 0)
      problem(
          "perf_mode double_row is not available on this target (NKI nc_matmul: "
          "performance mode is not supported on NeuronCore-v2; "
          "tensor.double_row_speedup is 0)");
    for (auto [role, ap] :
         {std::pair{"stationary", &mm.stationary}, std::pair{"moving", &mm.moving}}) {
      // "float8_e4m3 or float8_e5m2 (plus float8_e4m3fn on NeuronCore-v4)" (nc_matmul).
      if (ap->dtype != DType::fp8_e4m3 && ap->dtype != DType::fp8_e5m2 &&
          ap->dtype != DType::fp8_e4m3fn)
        problem(std::string(role) + " is " + name(ap->dtype) +
                "; perf_mode double_row is the FP8 double performance mode (fp8_e4m3, fp8_e5m2 "
                "inputs, fp8_e4m3fn from NeuronCore-v4)");
      if (ap->free_elems() % 2 != 0)
        problem(std::string(role) + " " + fmt_shape(*ap) +
                " has an odd free size; perf_mode double_row reads each input as [K, 2, F] "
                "(its most major free dimension two)");
    }
  }

  void check_matmul_dtypes(DType s, DType m) {
    bool ok = true;
    for (auto [role, t] : {std::pair{"stationary", s}, std::pair{"moving", m}})
      if (!is_matmul_input(t)) {
        problem(std::string(role) + " dtype " + name(t) +
                " is not a matmul input (fp8_e4m3, fp8_e5m2, fp8_e4m3fn, bf16, fp16, tf32, "
                "fp32)");
        ok = false;
      }
    if (ok && is_fp32_class(s) != is_fp32_class(m))
      problem("stationary " + name(s) + " and moving " + name(m) +
              " mix a tf32/fp32 input with a narrower one; a tf32/fp32 input needs a tf32/fp32 "
              "partner");
    // "float8_e4m3 (legacy) and float8_e4m3fn cannot be mixed in the same matmul".
    if ((s == DType::fp8_e4m3 && m == DType::fp8_e4m3fn) ||
        (s == DType::fp8_e4m3fn && m == DType::fp8_e4m3))
      problem("stationary " + name(s) + " and moving " + name(m) +
              " mix legacy fp8_e4m3 with OCP fp8_e4m3fn, which one matmul cannot (NKI "
              "nc_matmul, Data types)");
  }

  const Kernel& k_;
  const params::TargetLimits& limits_;
  Engine engine_;
  InstrReporter& report_;
};

}  // namespace

void check_opcode_rules(const Kernel& k, const params::TargetLimits& limits, Engine engine,
                        const Instruction& instr, InstrReporter& report) {
  // Reference section 3: GpSimd has no psum access.
  if (engine == Engine::gpsimd)
    for (const auto& operand : named_operands(instr))
      if (operand.ap->space == MemSpace::psum)
        report.problem(std::string(operand.role) + ": the gpsimd engine cannot access psum");
  // A packed x4 element has no one value (NKI/quantize_mx, "Data types": four fp8 values
  // in 32 bits): only the MX instructions read or write its lanes, and a dma_copy moves it
  // byte for byte (the same dtype on both sides, nothing cast or accumulated).
  const Opcode op = instr.opcode();
  if (op != Opcode::quantize_mx && op != Opcode::matmul_mx) {
    const auto* dma = std::get_if<DmaCopy>(&instr.op);
    for (const auto& operand : named_operands(instr)) {
      if (!is_packed_x4(operand.ap->dtype)) continue;
      const bool moved = dma && dma->dst.dtype == dma->src.dtype && !dma->accumulate &&
                         (operand.ap == &dma->dst || operand.ap == &dma->src);
      if (!moved)
        report.problem(std::string(operand.role) + " is " +
                       std::string(dtype_name(operand.ap->dtype)) +
                       ", four packed values per element: only quantize_mx, nc_matmul_mx "
                       "and a same-dtype dma_copy take it");
    }
  }
  std::visit(OpcodeChecker(k, limits, engine, report), instr.op);
}

}  // namespace neuronsim::isa::validate_detail
