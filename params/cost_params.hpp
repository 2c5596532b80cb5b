#pragma once
// The numbers the cost model (cost/cost_model.hpp) reads. Filled from the target config
// (config/targets/*.json), which documents each with its unit and source; params/ keeps no
// hardware numbers of its own, so every field starts at zero here.
#include <cstdint>

namespace neuronsim::params {

struct CostParams {
  // --- Vector / Scalar / GpSimd (cycles of the engine's own clock), reference section 4
  std::uint32_t min_issue_interval = 0;      // MIN_II, ~64 cycles
  std::uint32_t reduce_extra = 0;            // extra cycles of tensor_scalar with reduce
  std::uint32_t dependent_overhead = 0;      // static overhead of a dependent tiny instruction
  std::uint32_t tiny_instruction_elems = 0;  // N at or below which an instruction is "tiny"
  std::uint32_t accumulator_read = 0;        // activation with reduce reads the Scalar accumulator
  std::uint32_t gpsimd_fixed = 0;            // fixed part of iota / affine_select (150 + N)
  std::uint32_t vector_reciprocal_factor = 0;  // reciprocal on Vector: max(MIN_II, f*N)
  std::uint32_t bn_aggr_numerator = 0;         // bn_aggr: max(MIN_II, num*N/den)
  std::uint32_t bn_aggr_denominator = 0;
  // Datapath widths in elements per cycle. The v2 table is for 128; wider paths divide N.
  std::uint32_t baseline_elems_per_cycle = 0;  // 128: the width the published table assumes
  std::uint32_t vector_elems_per_cycle_16bit = 0;
  std::uint32_t vector_elems_per_cycle_other = 0;
  std::uint32_t scalar_elems_per_cycle_16bit = 0;
  std::uint32_t scalar_elems_per_cycle_other = 0;
  std::uint32_t gpsimd_elems_per_cycle = 0;
  // 1: fp8 operands run at the 16-bit widths above (v4: Vector "512 BF16/FP16/FP8", Scalar
  // "256 BF16/FP16/FP8", trainium3_arch.rst); 0: at the other-dtype widths (v3's Vector
  // performance modes need BF16/FP16, trainium2_arch.rst). A flag kept as uint32 so the
  // struct stays uniform (tests/unit/config_presets.cpp).
  std::uint32_t fp8_at_16bit_width = 0;
  // --- Tensor engine
  std::uint32_t mm_init_latency = 0;          // MM_INIT_LATENCY, matmul fill latency
  std::uint32_t load_stationary_speedup = 0;  // LoadStationary is up to f times faster
  std::uint32_t double_row_speedup = 0;       // perf_mode double_row rate multiplier (0: none)
  std::uint32_t mx_speedup = 0;               // nc_matmul_mx contraction rate vs bf16 (0: none)
  // The throttle of the PE array (cost/tensor_throttle.hpp): 1 on; the rate it starts at, in
  // percent of full; the busy time, in ns of the Tensor clock, over which it ramps to full.
  std::uint32_t tensor_throttle = 0;
  std::uint32_t tensor_throttle_start_percent = 0;
  std::uint32_t tensor_throttle_ramp_ns = 0;
  // --- SBUF / PSUM access (reference section 2)
  std::uint32_t stride_penalty_bytes = 0;   // innermost stride above this many bytes...
  std::uint32_t stride_penalty_factor = 0;  // ...divides the bandwidth by this factor
  // --- What-if scaling (docs/whatif.md): each compute engine's cost-model cycles in percent
  // of the formulas' (100: the modelled hardware; 50: twice as fast; 0: free). Not a
  // hardware number: the knob `neuronsim whatif` turns to relieve one engine.
  std::uint32_t tensor_cost_percent = 0;
  std::uint32_t vector_cost_percent = 0;
  std::uint32_t scalar_cost_percent = 0;
  std::uint32_t gpsimd_cost_percent = 0;
  // --- Tensor engine, a real number (last, so the struct has no padding)
  double fp32_matmul_factor = 0;  // fp32 matmul runs at 1/f rate (the chips' bf16/fp32 TFLOPS)
};

}  // namespace neuronsim::params
