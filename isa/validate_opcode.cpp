// Validation rules of each opcode (reference section 3): operand shapes, memory spaces and
// dtypes. Runs only on operands whose structure check_pattern() accepted.
#include <string>
#include <type_traits>
#include <variant>

#include "isa/validate_detail.hpp"

namespace neuronsim::isa::validate_detail {

namespace {

// Reference section 3: tensor_reduce reduces with add, max, min or multiply.
bool is_reduction(AluOp op) {
  return op == AluOp::add || op == AluOp::max || op == AluOp::min || op == AluOp::multiply;
}
// Reference section 3: matmul inputs other than fp32.
bool is_narrow_matmul_input(DType t) {
  return t == DType::fp8_e4m3 || t == DType::fp8_e5m2 || t == DType::bf16 || t == DType::fp16 ||
         t == DType::tf32;
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
std::string num(std::uint64_t v) {
  return std::to_string(v);
}

class OpcodeChecker {
 public:
  OpcodeChecker(const Kernel& k, const TargetLimits& limits, Engine engine, InstrReporter& report)
      : k_(k), limits_(limits), engine_(engine), report_(report) {}

  void operator()(const Matmul& mm) {
    in_space("dst", mm.dst, MemSpace::psum);
    if (mm.dst.dtype != DType::fp32)
      problem("dst is " + name(mm.dst.dtype) + ", but matmul accumulates fp32 in psum");
    in_space("stationary", mm.stationary, MemSpace::sbuf);
    in_space("moving", mm.moving, MemSpace::sbuf);
    const std::uint64_t k = mm.stationary.partitions, m = mm.stationary.free_elems(),
                        n = mm.moving.free_elems();
    if (mm.moving.partitions != k)
      problem("stationary and moving partition counts (contraction K) differ: " + num(k) + " vs " +
              num(mm.moving.partitions));
    if (k > limits_.matmul_max_k)
      problem("contraction K = " + num(k) + " exceeds matmul_max_k " + num(limits_.matmul_max_k));
    if (m > limits_.matmul_max_m)
      problem("M = stationary free size " + num(m) + " exceeds matmul_max_m " +
              num(limits_.matmul_max_m));
    if (n > limits_.matmul_max_n)
      problem("N = moving free size " + num(n) + " exceeds matmul_max_n " +
              num(limits_.matmul_max_n));
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
  }

  void operator()(const Activation& a) {
    same_shape("dst", a.dst, "src", a.src);
    if (const auto* scale = std::get_if<AccessPattern>(&a.scale))
      per_partition("scale", *scale, a.src.partitions);
    if (a.bias) per_partition("bias", *a.bias, a.src.partitions);
    if (a.reduce_dst) per_partition("reduce_dst", *a.reduce_dst, a.src.partitions);
  }

  void operator()(const TensorTensor& t) {
    same_shape("dst", t.dst, "a", t.a);
    same_shape("dst", t.dst, "b", t.b);
    // Reference section 3: tensor_tensor may not read both inputs from psum.
    if (t.a.space == MemSpace::psum && t.b.space == MemSpace::psum)
      problem("a and b are both in psum; tensor_tensor reads at most one input from psum");
    integer_only(t.op, {{"dst", &t.dst}, {"a", &t.a}, {"b", &t.b}});
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
      if (!is_reduction(t.reduce_op))
        problem("reduce_op " + name(t.reduce_op) + " is not a reduction (add, max, min, multiply)");
    }
  }

  void operator()(const ScalarTensorTensor& t) {
    same_shape("dst", t.dst, "a", t.a);
    same_shape("dst", t.dst, "b", t.b);
    if (const auto* arg = std::get_if<AccessPattern>(&t.scalar))
      per_partition("scalar", *arg, t.a.partitions);
    integer_only(t.op0, {{"dst", &t.dst}, {"a", &t.a}});
    integer_only(t.op1, {{"dst", &t.dst}, {"a", &t.a}, {"b", &t.b}});
  }

  void operator()(const TensorReduce& t) {
    if (!is_reduction(t.op))
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
    if (d.dst.elems() != d.src.elems())
      problem("dst has " + num(d.dst.elems()) + " elements, src " + num(d.src.elems()) +
              "; a dma_copy moves equal counts");
    // Reference section 3: DMA moves HBM <-> SBUF and SBUF <-> SBUF.
    if (d.dst.space == MemSpace::psum || d.src.space == MemSpace::psum)
      problem("dma_copy cannot access psum (it moves between hbm and sbuf)");
    if (d.queue >= k_.queues.size())
      problem("queue index " + num(d.queue) + " is out of range (the kernel has " +
              num(k_.queues.size()) + " queues)");
    if (d.accumulate && !is_float(d.dst.dtype))
      problem("accumulate needs a float dst, got " + name(d.dst.dtype));
  }

  void operator()(const Nop&) {}

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

  void integer_only(AluOp op, std::initializer_list<Named> operands) {
    if (!is_bitwise_op(op)) return;
    for (const Named& x : operands)
      if (!is_integer(x.ap->dtype))
        problem("op " + name(op) + " needs integer dtypes, but " + x.role + " is " +
                name(x.ap->dtype));
  }

  void check_matmul_dtypes(DType s, DType m) {
    if (s == DType::fp32 || m == DType::fp32) {
      if (s != m)
        problem("fp32 matmul inputs must both be fp32, got stationary " + name(s) + " and moving " +
                name(m));
      return;
    }
    bool ok = true;
    for (auto [role, t] : {std::pair{"stationary", s}, std::pair{"moving", m}})
      if (!is_narrow_matmul_input(t)) {
        problem(std::string(role) + " dtype " + name(t) +
                " is not a matmul input (fp8_e4m3, fp8_e5m2, bf16, fp16, tf32, fp32)");
        ok = false;
      }
    if (ok && dtype_size(s) != dtype_size(m))
      problem("stationary " + name(s) + " and moving " + name(m) +
              " differ in width; matmul inputs must match");
  }

  const Kernel& k_;
  const TargetLimits& limits_;
  Engine engine_;
  InstrReporter& report_;
};

}  // namespace

void check_opcode_rules(const Kernel& k, const TargetLimits& limits, Engine engine,
                        const Instruction& instr, InstrReporter& report) {
  // Reference section 3: GpSimd has no psum access.
  if (engine == Engine::gpsimd)
    for (const auto& operand : named_operands(instr))
      if (operand.ap->space == MemSpace::psum)
        report.problem(std::string(operand.role) + ": the gpsimd engine cannot access psum");
  std::visit(OpcodeChecker(k, limits, engine, report), instr.op);
}

}  // namespace neuronsim::isa::validate_detail
