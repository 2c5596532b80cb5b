// The published NeuronCore-v2 instruction costs (reference section 4), with the v3/v4
// width scaling and the stride penalty of cost_rate.hpp. Every choice made where the
// reference is silent is listed, with its reason, in docs/cost-model.md.
#include "cost/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.hpp"
#include "cost/operands.hpp"
#include "cost/rate.hpp"

namespace neuronsim::isa {

namespace {

using cost::is_contiguous;
using cost::require_nonzero;
using cost::stream_cycles;
using cost::StreamRate;
using cost::stride_penalty;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

bool is_positive_zero(double v) {
  return v == 0.0 && !std::signbit(v);
}

// One step of a tensor_scalar that computes a reciprocal of the data: `arg / x`
// (divide with the operands reversed) or `x pow -1`.
bool reciprocal_step(AluOp op, const ScalarArg& arg, bool reverse) {
  if (op == AluOp::divide) return reverse;
  if (op == AluOp::pow && !reverse) {
    const float* exponent = std::get_if<float>(&arg);
    return exponent != nullptr && *exponent == -1.0f;
  }
  return false;
}

bool computes_reciprocal(const TensorScalar& ts) {
  return reciprocal_step(ts.op0, ts.arg0, ts.reverse0) ||
         (ts.op1 && reciprocal_step(*ts.op1, ts.arg1, ts.reverse1));
}

// Matmul input dtype and mode rates: fp32 runs fp32_matmul_factor times slower (reference
// section 4; the chips' published bf16 / fp32 TFLOPS, 4 on trn1, 3.69 on trn2, 3.67 on trn3,
// so a real number, the cycles rounded up once); perf_mode double_row streams its two
// contraction rows
// double_row_speedup times faster (NKI Trainium2 architecture guide, "Double FP8 Matmul
// Performance": a 256-deep double-FP8 LoadStationary/MultiplyMoving takes the time of a
// 128-deep BF16 one). fp8 inputs without the mode run at the bf16 rate: the mode is asked
// for (nki.isa.matmul_perf_mode), not implied by the dtype.
double fp32_factor(const Matmul& mm, const params::CostParams& p) {
  const bool fp32 = mm.stationary.dtype == DType::fp32 || mm.moving.dtype == DType::fp32;
  if (!fp32) return 1;
  if (!(p.fp32_matmul_factor > 0)) throw Error("cost model: fp32_matmul_factor is not positive");
  return p.fp32_matmul_factor;
}
// ceil(cycles * fp32 factor / denom): exact for an integer factor (the 1e-9 keeps a product
// that is a whole number from rounding up; cycle counts stay far below 2^53).
std::uint64_t fp32_scaled(const Matmul& mm, const params::CostParams& p, std::uint64_t cycles,
                          std::uint64_t denom = 1) {
  const double f = fp32_factor(mm, p);
  if (f == 1) return ceil_div(cycles, denom);
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(cycles) * f / static_cast<double>(denom) - 1e-9));
}
std::uint64_t matmul_dtype_scaled(const Matmul& mm, const params::CostParams& p,
                                  std::uint64_t numer, std::uint64_t denom) {
  if (mm.perf_mode == MatmulPerfMode::double_row)
    denom *= require_nonzero(p.double_row_speedup, "double_row_speedup");
  return fp32_scaled(mm, p, numer, denom);
}

// Tensor-engine transpose is a matmul with the data as the stationary tensor [P, F] and an
// identity [P, P] as the moving one (NKI nc_transpose), so the table's max(P, min(64, F))
// is max(N_moving, min(MM_INIT_LATENCY, N_stationary)): the 64 is mm_init_latency.
std::uint64_t tensor_transpose_cycles(const Transpose& t, const params::CostParams& p) {
  const std::uint64_t partitions = t.src.partitions;
  const std::uint64_t free = t.src.free_elems();
  return std::max<std::uint64_t>(partitions, std::min<std::uint64_t>(p.mm_init_latency, free));
}

// Vector / Scalar / GpSimd costs: one formula per row of the reference section 4 table.
// `stream(k, d)` is the N-proportional part k/d * N at this instruction's rate.
struct StreamingCost {
  const params::CostParams& p;
  Engine engine;
  StreamRate rate;
  std::uint64_t n;

  std::uint64_t stream(std::uint64_t num = 1, std::uint64_t den = 1) const {
    return stream_cycles(rate, n, num, den);
  }
  std::uint64_t at_least_min_ii(std::uint64_t c) const {
    return std::max<std::uint64_t>(p.min_issue_interval, c);
  }

  // max(MIN_II, N), + accumulator_read with a reduction: the published + MIN_II of an
  // activation with reduce is its read-out of the Scalar accumulator (docs/cost-model.md).
  std::uint64_t operator()(const Activation& a) const {
    return at_least_min_ii(stream()) + (a.reduce_dst ? p.accumulator_read : 0);
  }
  // max(MIN_II, N) (+ reduce_extra); a reciprocal on Vector is max(MIN_II, 8N).
  std::uint64_t operator()(const TensorScalar& ts) const {
    const std::uint64_t factor =
        engine == Engine::vector && computes_reciprocal(ts)
            ? require_nonzero(p.vector_reciprocal_factor, "vector_reciprocal_factor")
            : 1;
    return at_least_min_ii(stream(factor)) + (ts.reduce_dst ? p.reduce_extra : 0);
  }
  std::uint64_t operator()(const TensorCopy&) const { return at_least_min_ii(stream()); }
  // max(MIN_II, N) with one input in PSUM, or both inputs contiguous bf16 in SBUF with a
  // bf16 output and add/multiply/subtract (NKI tensor_tensor); else max(MIN_II, 2N).
  std::uint64_t operator()(const TensorTensor& tt) const {
    const bool a_psum = tt.a.space == MemSpace::psum, b_psum = tt.b.space == MemSpace::psum;
    const bool all_bf16 =
        tt.a.dtype == DType::bf16 && tt.b.dtype == DType::bf16 && tt.dst.dtype == DType::bf16;
    const bool fast_op =
        tt.op == AluOp::add || tt.op == AluOp::multiply || tt.op == AluOp::subtract;
    const bool sbuf_fast =
        !a_psum && !b_psum && all_bf16 && fast_op && is_contiguous(tt.a) && is_contiguous(tt.b);
    return at_least_min_ii(stream(a_psum != b_psum || sbuf_fast ? 1 : 2));
  }
  // Not in the table (the NKI page gives no cost): priced as tensor_tensor's formula for its
  // two streamed inputs, max(MIN_II, N) with exactly one input in PSUM (the two memories
  // feed in parallel), else max(MIN_II, 2N). No bf16 fast path: the recurrence is serial.
  std::uint64_t operator()(const TensorTensorScan& s) const {
    const bool one_psum = (s.data0.space == MemSpace::psum) != (s.data1.space == MemSpace::psum);
    return at_least_min_ii(stream(one_psum ? 1 : 2));
  }
  // N for bf16 inputs with subtract then multiply and even N, else 2N (no MIN_II floor).
  std::uint64_t operator()(const ScalarTensorTensor& stt) const {
    const bool fast = stt.a.dtype == DType::bf16 && stt.b.dtype == DType::bf16 &&
                      stt.op0 == AluOp::subtract && stt.op1 == AluOp::multiply && n % 2 == 0;
    return stream(fast ? 1 : 2);
  }
  // N/2 for bf16 in and out with add or max, else N (no MIN_II floor).
  std::uint64_t operator()(const TensorReduce& tr) const {
    const bool fast = tr.src.dtype == DType::bf16 && tr.dst.dtype == DType::bf16 &&
                      (tr.op == AluOp::add || tr.op == AluOp::max);
    return fast ? stream(1, 2) : stream();
  }
  // max(MIN_II, N/2) for +0.0 into a 16-bit type, else max(MIN_II, N).
  std::uint64_t operator()(const Memset& m) const {
    const bool zero16 = is_positive_zero(m.value) && dtype_size(m.dst.dtype) == 2;
    return at_least_min_ii(zero16 ? stream(1, 2) : stream());
  }
  // GpSimd (the only engine that runs them): gpsimd_fixed + N.
  std::uint64_t operator()(const Iota&) const { return p.gpsimd_fixed + stream(); }
  std::uint64_t operator()(const AffineSelect&) const { return p.gpsimd_fixed + stream(); }
  // Not in the table: priced like NKI tensor_copy_predicated, max(MIN_II, N) with an input
  // in PSUM (the two memories feed in parallel), else max(MIN_II, 2N).
  std::uint64_t operator()(const Select& s) const {
    const bool any_psum = s.predicate.space == MemSpace::psum ||
                          s.on_true.space == MemSpace::psum || s.on_false.space == MemSpace::psum;
    return at_least_min_ii(stream(any_psum ? 1 : 2));
  }
  // Not in the table: NKI bn_stats, max(MIN_II, N).
  std::uint64_t operator()(const BnStats&) const { return at_least_min_ii(stream()); }
  // max(MIN_II, ceil(13N/3)).
  std::uint64_t operator()(const BnAggr&) const {
    return at_least_min_ii(stream(require_nonzero(p.bn_aggr_numerator, "bn_aggr_numerator"),
                                  require_nonzero(p.bn_aggr_denominator, "bn_aggr_denominator")));
  }
  // Vector transpose, not in the table: NKI nc_transpose on Vector, max(MIN_II, N).
  std::uint64_t operator()(const Transpose&) const { return at_least_min_ii(stream()); }
  // NKI/reciprocal and reference section 4: max(MIN_II, 8N) on Vector.
  std::uint64_t operator()(const Reciprocal&) const {
    return at_least_min_ii(
        stream(require_nonzero(p.vector_reciprocal_factor, "vector_reciprocal_factor")));
  }
  // NKI/dropout: max(MIN_II, N).
  std::uint64_t operator()(const Dropout&) const { return at_least_min_ii(stream()); }
  // Not in the table (NKI/tensor_partition_reduce publishes no cost): gpsimd_fixed + 2N, the
  // GpSimd rows' fixed part plus two passes of N: the P rows are read at the datapath's
  // width (P*N elements at 128 per cycle, at most N cycles), and the partial rows of the
  // cores (each serves 16 partitions, reference section 1) are combined in a second pass.
  std::uint64_t operator()(const PartitionReduce&) const { return p.gpsimd_fixed + stream(2); }
  // NKI/max8, nc_find_index8, nc_match_replace8: "N engine cycles", N = elements per
  // partition of the data (published without a MIN_II floor, kept so, as tensor_reduce).
  std::uint64_t operator()(const Max8&) const { return stream(); }
  std::uint64_t operator()(const FindIndex8&) const { return stream(); }
  std::uint64_t operator()(const MatchReplace8&) const { return stream(); }
  // max(MIN_II, N) for N source elements per partition, one pass at the 16-bit width
  // (cost/rate.cpp: the NKI Trainium3 guide's QuantizeMX rate, 4 elements per partition per
  // cycle on v4; NKI/quantize_mx itself publishes no cost): the group maxima and the casts
  // are that pass's work.
  std::uint64_t operator()(const QuantizeMx&) const { return at_least_min_ii(stream()); }
  // No overload for Matmul, MatmulMx, DmaCopy or Nop (InstructionCost prices those) and no
  // fallback: a streaming opcode added without its formula does not compile.
};

}  // namespace

namespace {

// The what-if scaling of an engine's cycles (tensor.cost_percent, ...; docs/whatif.md),
// rounded up so that only 0 % makes an instruction free. The Sync engine runs nothing that
// takes cycles (a dma_copy's time is the DMA model's, a nop a synchronisation point).
std::uint64_t percent_of(Engine engine, const params::CostParams& p) {
  switch (engine) {
    case Engine::tensor:
      return p.tensor_cost_percent;
    case Engine::vector:
      return p.vector_cost_percent;
    case Engine::scalar:
      return p.scalar_cost_percent;
    case Engine::gpsimd:
      return p.gpsimd_cost_percent;
    case Engine::sync:
      return 100;  // unscaled: nothing Sync runs takes cycles
  }
  throw Error("cost model: engine " + std::to_string(static_cast<int>(engine)) + " unknown");
}

std::uint64_t scaled(std::uint64_t cycles, Engine engine, const params::CostParams& p) {
  return ceil_div(cycles * percent_of(engine, p), 100);
}

}  // namespace

std::uint64_t multiply_moving_cycles(const Matmul& mm, const params::CostParams& p) {
  // max(min(MM_INIT_LATENCY, N_stationary), N_moving); the N_moving stream pays the stride
  // penalty of the moving tensor and the PSUM result. N_stationary counts the stationary's
  // columns (M); the moving stream is all its free elements (2N in double_row, at that
  // mode's rate), so a double_row matmul costs what a plain [K, M] x [K, N] one does.
  const std::uint64_t n_stationary = mm.m_cols();
  const std::uint64_t moving_stream =
      mm.moving.free_elems() * stride_penalty({&mm.moving, &mm.dst}, p);
  const std::uint64_t fill = std::min<std::uint64_t>(p.mm_init_latency, n_stationary);
  return std::max<std::uint64_t>(fp32_scaled(mm, p, fill),
                                 matmul_dtype_scaled(mm, p, moving_stream, 1));
}

std::uint64_t load_stationary_cycles(const Matmul& mm, const params::CostParams& p) {
  // "Up to load_stationary_speedup times faster than a MultiplyMoving of the same free
  // size": ceil(M / speedup) for M stationary columns, at the same dtype rates, at least 1.
  const std::uint64_t m = mm.stationary.free_elems() * stride_penalty({&mm.stationary}, p);
  const std::uint64_t speedup =
      require_nonzero(p.load_stationary_speedup, "load_stationary_speedup");
  return scaled(std::max<std::uint64_t>(1, matmul_dtype_scaled(mm, p, m, speedup)), Engine::tensor,
                p);
}

// nc_matmul_mx is nc_matmul's two parts with MX operands (NKI nc_matmul_mx: "matrix
// multiplication ... using Tensor Engine", the PE array's LoadStationary / MultiplyMoving;
// the Tensor engine keeps an MX stationary as it keeps a plain one, engines/tensor_engine.hpp).
// LoadStationary: ceil(M / load_stationary_speedup), at least 1, with the stationary's
// stride penalty.
std::uint64_t load_stationary_cycles(const MatmulMx& mm, const params::CostParams& p) {
  const std::uint64_t m = mm.stationary.free_elems() * stride_penalty({&mm.stationary}, p);
  const std::uint64_t speedup =
      require_nonzero(p.load_stationary_speedup, "load_stationary_speedup");
  return scaled(std::max<std::uint64_t>(1, ceil_div(m, speedup)), Engine::tensor, p);
}

// MultiplyMoving: max(min(MM_INIT_LATENCY, M), N * 4 / mx_speedup) with the moving tensor's
// stride penalty: each partition's four contraction rows (the x4 lanes) stream at mx_speedup
// times the bf16 rate ("4x throughput compared to BF16/FP16", NKI MXFP matmul deep dive;
// reference section 1: MX formats act as K=512), so on v4 an MX matmul takes a bf16 matmul's
// time for four times its contraction.
std::uint64_t multiply_moving_cycles(const MatmulMx& mm, const params::CostParams& p) {
  const std::uint64_t m = mm.stationary.free_elems();
  const std::uint64_t moving_stream =
      mm.moving.free_elems() * MatmulMx::kLanes * stride_penalty({&mm.moving, &mm.dst}, p);
  return std::max<std::uint64_t>(
      std::min<std::uint64_t>(p.mm_init_latency, m),
      ceil_div(moving_stream, require_nonzero(p.mx_speedup, "mx_speedup")));
}

std::optional<std::uint64_t> load_stationary_cycles(const Instruction& instr,
                                                    const params::CostParams& p) {
  if (const auto* mm = std::get_if<Matmul>(&instr.op)) return load_stationary_cycles(*mm, p);
  if (const auto* mx = std::get_if<MatmulMx>(&instr.op)) return load_stationary_cycles(*mx, p);
  return std::nullopt;
}

namespace {

// One overload per opcode on the engines that run it, no fallback: every opcode is
// priced, and an opcode added without a price does not compile.
struct InstructionCost {
  const Instruction& instr;
  Engine engine;
  const params::CostParams& p;
  const CostContext& ctx;

  std::uint64_t operator()(const Matmul& mm) const { return multiply_moving_cycles(mm, p); }
  std::uint64_t operator()(const MatmulMx& mm) const { return multiply_moving_cycles(mm, p); }
  std::uint64_t operator()(const Transpose& t) const {
    return engine == Engine::tensor ? tensor_transpose_cycles(t, p) : streamed(t);
  }
  // dma_copy: descriptor and transfer time belong to the DMA model. nop: a pure
  // synchronisation point, handled by the sequencer between instructions.
  std::uint64_t operator()(const DmaCopy&) const { return 0; }
  std::uint64_t operator()(const Nop&) const { return 0; }
  // Everything else streams through a Vector / Scalar / GpSimd datapath: StreamingCost
  // has one formula per opcode and no fallback.
  template <typename Op>
  std::uint64_t operator()(const Op& op) const {
    return streamed(op);
  }

  template <typename Op>
  std::uint64_t streamed(const Op& op) const {
    const std::uint64_t n = cost::elems_per_partition(instr);
    std::uint64_t c = StreamingCost{p, engine, cost::stream_rate(instr, engine, p), n}(op);
    // Reference section 4: a tiny instruction that depends on the one before it pays a
    // static overhead (Vector / Scalar / GpSimd; matmul accumulation chains are pipelined).
    if (ctx.depends_on_previous && n <= p.tiny_instruction_elems) c += p.dependent_overhead;
    return c;
  }
};

// Floating-point operations, one overload per opcode and no fallback.
struct Flops {
  // 2*K*M*N: K contraction rows (partitions, twice that in double_row), M stationary
  // columns, N moving columns.
  std::uint64_t operator()(const Matmul& x) const {
    return 2 * x.k_rows() * x.m_cols() * x.n_cols();
  }
  // 2*K*M*N with K the 4 * partitions contraction rows.
  std::uint64_t operator()(const MatmulMx& x) const {
    return 2 * x.k_rows() * x.stationary.free_elems() * x.moving.free_elems();
  }
  // Quantisation is not counted as floating-point work, as a cast (tensor_copy) is not.
  std::uint64_t operator()(const QuantizeMx&) const { return 0; }
  // One per output element, plus one per element for the optional reduction.
  std::uint64_t operator()(const Activation& x) const {
    return x.dst.elems() * (x.reduce_dst ? 2 : 1);
  }
  std::uint64_t operator()(const TensorScalar& x) const {
    return x.dst.elems() * (x.reduce_dst ? 2 : 1);
  }
  // Elementwise: one per output element.
  std::uint64_t operator()(const TensorTensor& x) const { return x.dst.elems(); }
  std::uint64_t operator()(const ScalarTensorTensor& x) const { return x.dst.elems(); }
  std::uint64_t operator()(const TensorTensorScan& x) const { return x.dst.elems(); }
  std::uint64_t operator()(const Reciprocal& x) const { return x.dst.elems(); }
  // Zeroing by a random draw: one comparison per element.
  std::uint64_t operator()(const Dropout& x) const { return x.dst.elems(); }
  // One op per element folded into another partition's: (P - 1) per output element.
  std::uint64_t operator()(const PartitionReduce& x) const {
    return x.src.partitions == 0 ? 0 : std::uint64_t{x.src.partitions - 1u} * x.src.free_elems();
  }
  // Comparisons: one per element consumed (max8, find_index8) or per element and value
  // (match_replace8 compares each element with the 8 values: counted once per element).
  std::uint64_t operator()(const Max8& x) const { return x.src.elems(); }
  std::uint64_t operator()(const FindIndex8& x) const { return x.data.elems(); }
  std::uint64_t operator()(const MatchReplace8& x) const { return x.data.elems(); }
  std::uint64_t operator()(const Select& x) const { return x.dst.elems(); }
  std::uint64_t operator()(const AffineSelect& x) const { return x.dst.elems(); }
  // Reductions: one per element consumed.
  std::uint64_t operator()(const TensorReduce& x) const { return x.src.elems(); }
  std::uint64_t operator()(const BnStats& x) const { return x.src.elems(); }
  std::uint64_t operator()(const BnAggr& x) const { return x.src.elems(); }
  // Data movement and synchronisation compute nothing.
  std::uint64_t operator()(const Transpose&) const { return 0; }
  std::uint64_t operator()(const TensorCopy&) const { return 0; }
  std::uint64_t operator()(const Memset&) const { return 0; }
  std::uint64_t operator()(const Iota&) const { return 0; }
  std::uint64_t operator()(const DmaCopy&) const { return 0; }
  std::uint64_t operator()(const Nop&) const { return 0; }
};

}  // namespace

std::uint64_t cycles(const Kernel& /*k: operands carry their own dtype and memory*/,
                     const Instruction& instr, Engine engine, const params::CostParams& p,
                     const CostContext& ctx) {
  const Opcode op = instr.opcode();
  if ((allowed_engines(op) & (1u << static_cast<int>(engine))) == 0)
    throw Error("cost model: " + std::string(opcode_name(op)) + " cannot run on the " +
                std::string(engine_name(engine)) + " engine");
  return scaled(std::visit(InstructionCost{instr, engine, p, ctx}, instr.op), engine, p);
}

std::uint64_t flops(const Instruction& instr) {
  return std::visit(Flops{}, instr.op);
}

}  // namespace neuronsim::isa
