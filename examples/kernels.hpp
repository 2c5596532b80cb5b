#pragma once
// Example kernels written with the builder (builder/builder.hpp): what a kernel engineer
// writes by hand for a NeuronCore. Each comes in a serial variant (one buffer: load,
// compute, store one after another) and a double-buffered variant that overlaps DMA with
// compute. `neuronsim example` emits them as NEFF or assembly.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "isa/kernel.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::examples {

struct ExampleParams {
  std::uint32_t rows = 0;   // M (matmul) or N (rows of softmax/rmsnorm); 0 = the default
  std::uint32_t cols = 0;   // N (matmul) or D (columns)
  std::uint32_t inner = 0;  // K (matmul only)
  bool double_buffered = false;
  std::uint32_t buffers = 0;  // rmsnorm/softmax: buffers per stage; 0: 2 if double_buffered
  // matmul: the GEMM schedule's knobs (compiler::GemmSpec); 0 = the planner's choice
  std::uint32_t block_rows = 0, block_cols = 0, b_slots = 0;
  std::string dtype;  // matmul, rmsnorm: the inputs' dtype (default bf16)
  std::string target = "trn2";
  params::TargetLimits limits;  // the target's (matmul sizes its tiles by them)
};

// C[M,N] = A[M,K] @ B[K,N] by the compiler's GEMM generator (compiler/gemm.hpp): inputs
// "a" and "b" of `dtype`, output "c" (bf16, fp32 for fp32 inputs), any M, N, K; needs
// `limits`. Default 512x512x512 bf16.
isa::Kernel matmul_tiled(const ExampleParams& p);
// y = softmax(x) along each row of x[N, D] (bf16). Default [1024, 1024].
isa::Kernel softmax_rows(const ExampleParams& p);
// y = x * rsqrt(mean(x^2) + eps) * w over x[N, D] (bf16, or fp32 with dtype "fp32"), w[D]:
// the hand-fused RMSNorm (the torch.rms_norm analogue). Default [1024, 2048].
isa::Kernel rmsnorm_fused(const ExampleParams& p, float eps = 1e-6f);

// Buffers per stage of the row examples: `buffers` (1..8) if given, else 2 with
// double_buffered, else 1. Throws neuronsim::Error outside 1..8, or when the matmul's
// schedule knobs are given.
std::uint32_t stage_buffers(const ExampleParams& p);

struct Example {
  std::string name;
  std::string description;
  std::function<isa::Kernel(const ExampleParams&)> make;
};
const std::vector<Example>& all_examples();
// Throws neuronsim::Error listing the known names.
const Example& find_example(const std::string& name);

}  // namespace neuronsim::examples
