#pragma once
// Shared helpers of the cost model tests: the NeuronCore-v2 parameters of reference
// section 4, a v3 variant, and one-line builders of access patterns and instructions.
#include <cstdint>

#include "cost/cost_model.hpp"

namespace cost_test {

using namespace neuronsim::isa;
namespace params = neuronsim::params;

// NeuronCore-v2 (reference section 4). tiny_instruction_elems is not published: 64, one
// MIN_II's worth of elements, is the value these tests assume.
inline params::CostParams v2_params() {
  params::CostParams p;
  p.min_issue_interval = 64;
  p.reduce_extra = 64;
  p.dependent_overhead = 100;
  p.tiny_instruction_elems = 64;
  p.accumulator_read = 64;
  p.gpsimd_fixed = 150;
  p.vector_reciprocal_factor = 8;
  p.bn_aggr_numerator = 13;
  p.bn_aggr_denominator = 3;
  p.baseline_elems_per_cycle = 128;
  p.vector_elems_per_cycle_16bit = 128;
  p.vector_elems_per_cycle_other = 128;
  p.scalar_elems_per_cycle_16bit = 128;
  p.scalar_elems_per_cycle_other = 128;
  p.gpsimd_elems_per_cycle = 128;
  p.mm_init_latency = 64;
  p.fp32_matmul_factor = 4;
  p.load_stationary_speedup = 4;
  p.double_row_speedup = 0;  // NKI nc_matmul: no performance mode on v2
  p.stride_penalty_bytes = 16;
  p.stride_penalty_factor = 2;
  // What-if scaling off: the formulas as published (docs/whatif.md).
  p.tensor_cost_percent = p.vector_cost_percent = p.scalar_cost_percent = p.gpsimd_cost_percent =
      100;
  return p;
}

// NeuronCore-v3 (reference section 1): Vector 512 for bf16/fp16, 256 other; Scalar 128;
// perf_mode double_row at twice the rate.
inline params::CostParams v3_params() {
  params::CostParams p = v2_params();
  p.vector_elems_per_cycle_16bit = 512;
  p.vector_elems_per_cycle_other = 256;
  p.double_row_speedup = 2;
  return p;
}

// A [partitions, n] tile with one free dimension of the given stride (elements).
inline AccessPattern tile(DType dtype, std::uint32_t n, MemSpace space = MemSpace::sbuf,
                          std::int32_t stride = 1, std::uint32_t partitions = 128) {
  AccessPattern ap;
  ap.space = space;
  ap.dtype = dtype;
  ap.partitions = partitions;
  ap.ndims = 1;
  ap.dims[0] = Dim{stride, n};
  return ap;
}

// A per-partition [P, 1] vector (scale, bias, reduce_dst).
inline AccessPattern column(DType dtype = DType::fp32) {
  return tile(dtype, 1);
}

inline std::uint64_t busy_cycles(const Operation& op, Engine engine, const params::CostParams& p,
                                 bool depends_on_previous = false) {
  Kernel k;
  Instruction instr;
  instr.op = op;
  CostContext ctx;
  ctx.depends_on_previous = depends_on_previous;
  return cycles(k, instr, engine, p, ctx);
}

inline std::uint64_t flops_of(const Operation& op) {
  Instruction instr;
  instr.op = op;
  return flops(instr);
}

inline TensorCopy copy_op(const AccessPattern& src, const AccessPattern& dst) {
  TensorCopy c;
  c.src = src;
  c.dst = dst;
  return c;
}

inline TensorCopy copy_op(DType dtype, std::uint32_t n) {
  return copy_op(tile(dtype, n), tile(dtype, n));
}

inline TensorTensor tt_op(const AccessPattern& a, const AccessPattern& b, const AccessPattern& dst,
                          AluOp op) {
  TensorTensor t;
  t.a = a;
  t.b = b;
  t.dst = dst;
  t.op = op;
  return t;
}

inline TensorScalar ts_op(DType dtype, std::uint32_t n, AluOp op0, ScalarArg arg0 = 1.0f,
                          bool reverse0 = false) {
  TensorScalar t;
  t.src = tile(dtype, n);
  t.dst = tile(dtype, n);
  t.op0 = op0;
  t.arg0 = arg0;
  t.reverse0 = reverse0;
  return t;
}

inline Matmul matmul_op(DType dtype, std::uint32_t n_stationary, std::uint32_t n_moving,
                        std::uint32_t k = 128) {
  Matmul m;
  m.stationary = tile(dtype, n_stationary, MemSpace::sbuf, 1, k);
  m.moving = tile(dtype, n_moving, MemSpace::sbuf, 1, k);
  m.dst = tile(DType::fp32, n_moving, MemSpace::psum, 1, n_stationary);
  return m;
}

// perf_mode double_row: stationary [k, 2, m], moving [k, 2, n] (2m and 2n free elements),
// dst [m, n].
inline Matmul double_row_op(DType dtype, std::uint32_t m, std::uint32_t n, std::uint32_t k = 128) {
  Matmul mm = matmul_op(dtype, 2 * m, 2 * n, k);
  mm.dst = tile(DType::fp32, n, MemSpace::psum, 1, m);
  mm.perf_mode = MatmulPerfMode::double_row;
  return mm;
}

}  // namespace cost_test
