// Tiled matmul: C[M,N] = A[M,K] @ B[K,N], made by the GEMM generator the compiler uses for
// its matmul launches (compiler/gemm.hpp; docs/compiler.md, "Matmul", has the schedule).
// Serial: one buffer per stage, so B's loads, the multiplies and the stores take turns.
// Double-buffered: the pipelined schedule, B tiles loaded several K-steps ahead of the
// multiplies and each block's output drained while the next one accumulates.
#include <string>

#include "base/error.hpp"
#include "compiler/gemm.hpp"
#include "examples/kernels.hpp"
#include "examples/tiling.hpp"

namespace neuronsim::examples {

isa::Kernel matmul_tiled(const ExampleParams& p) {
  if (p.buffers != 0)
    throw Error(
        "matmul: --buffers is for rmsnorm and softmax; the GEMM's pipeline is "
        "--double-buffer (docs/compiler.md)");
  compiler::GemmSpec s;
  s.kernel_name = p.double_buffered ? "matmul_db" : "matmul";
  s.target = p.target;
  s.m = or_default(p.rows, 512);
  s.n = or_default(p.cols, 512);
  s.k = or_default(p.inner, 512);
  const std::string dtype = p.dtype.empty() ? "bf16" : p.dtype;
  const auto t = isa::parse_dtype(dtype);
  if (!t || !(*t == isa::DType::bf16 || *t == isa::DType::fp16 || *t == isa::DType::fp32 ||
              *t == isa::DType::fp8_e4m3 || *t == isa::DType::fp8_e5m2))
    throw Error("matmul: dtype '" + dtype +
                "' is not a matmul input (bf16, fp16, fp8_e4m3, fp8_e5m2, fp32)");
  s.in_dtype = *t;
  // fp32 in, fp32 out; narrower inputs give bf16, as torch._scaled_mm does for fp8.
  s.out_dtype = *t == isa::DType::fp32 ? isa::DType::fp32 : isa::DType::bf16;
  s.pipelined = p.double_buffered;
  s.block_rows = p.block_rows;
  s.block_cols = p.block_cols;
  s.b_slots = p.b_slots;
  return compiler::emit_gemm(s, p.limits);
}

}  // namespace neuronsim::examples
