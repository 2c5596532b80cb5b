#pragma once
// The one GEMM generator: C[M,N] = A[M,K] @ B[K,N] as a kernel, for `neuronsim example
// matmul` and for the compiler's matmul launches (docs/compiler.md, "Matmul"). Any M, N,
// K (partial tiles included); bf16, fp16, fp8 or fp32 operands, accumulated in fp32.
//
// A is read in its natural row-major layout and transposed on the Tensor engine (the
// matmul wants K on the partitions of both operands, reference section 3); a block of
// A^T stays in SBUF while B streams through a ring of K-tiles, and each block's result
// accumulates over K in PSUM banks before Vector and Scalar copy it out.
#include <cstdint>
#include <string>
#include <vector>

#include "isa/dtype.hpp"
#include "isa/instruction.hpp"
#include "isa/kernel.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::compiler {

// Where an operand sits in its HBM tensor: the tensor's shape (empty: exactly the
// operand's) and the first column of the operand in its rows (a slice x[..., col0:]).
// Rows are the leading dimensions flattened.
struct GemmView {
  std::vector<std::uint64_t> shape;
  std::uint64_t col0 = 0;
};

// One elementwise op on the result, applied while it is copied out of PSUM (fused mode's
// epilogues, docs/compiler.md "Fusion around matmuls"). In fp32; C is rounded once.
struct EpilogueStep {
  enum class Kind : std::uint8_t { activation, scalar, tensor } kind = Kind::activation;
  isa::ActFunc func = isa::ActFunc::copy;  // activation: func(x * scale + bias)
  float scale = 1.0f, bias = 0.0f;
  isa::AluOp op = isa::AluOp::add;  // scalar: x op imm; tensor: x op T
  float imm = 0.0f;
  bool reverse = false;  // imm op x, T op x
  std::string tensor;    // tensor: an HBM input, [M, N] (rows) or [N] / [1, N] (column)
  isa::DType tensor_dtype = isa::DType::bf16;
  std::vector<std::uint64_t> tensor_shape;
  bool column = false;
};

struct GemmSpec {
  std::string kernel_name = "gemm";
  std::string target;                                    // recorded in the kernel
  std::string a_name = "a", b_name = "b", c_name = "c";  // HBM tensors; a == b allowed
  isa::DType in_dtype = isa::DType::bf16;                // A and B
  isa::DType out_dtype = isa::DType::bf16;               // C
  std::uint32_t m = 0, n = 0, k = 0;
  // false: one buffer per stage, so loads, multiplies and stores take turns (a baseline
  // to compare the pipelined schedule with).
  bool pipelined = true;
  GemmView a_view, b_view, c_view;
  // B is given transposed: the HBM tensor holds B^T [N, K], transposed on the Tensor engine
  // (Q @ K^T). All of B must then stay in SBUF (plan_gemm throws otherwise).
  bool b_transposed = false;
  std::vector<EpilogueStep> epilogue;
  // The schedule's knobs, for a tile-size sweep (docs/compiler.md, "Matmul"); 0 leaves each
  // to plan_gemm. block_rows x block_cols is the register block (row tiles of A x column
  // chunks of B accumulated at once, at most the PSUM banks), b_slots the ring of B tiles
  // in flight. A knob the target cannot hold is an error, never silently shrunk.
  std::uint32_t block_rows = 0, block_cols = 0, b_slots = 0;
};

// How the problem is tiled (compiler/gemm_plan.cpp). A "block" is block_m_tiles row
// tiles of A (its A^T panel stays in SBUF); a "group" is group_chunks column chunks of
// B; one block x group is accumulated in block_m_tiles x group_chunks PSUM banks.
struct GemmPlan {
  std::uint32_t m_tile = 0;   // rows of A per tile: the stationary's free size
  std::uint32_t k_tile = 0;   // contraction rows per matmul: the partitions
  std::uint32_t n_chunk = 0;  // columns per matmul: one PSUM bank of fp32
  std::uint32_t m_tiles = 0, k_tiles = 0, n_chunks = 0;  // over the whole problem
  std::uint32_t psum_banks = 0;
  std::uint32_t block_m_tiles = 0;  // at most; blocks are balanced
  std::uint32_t group_chunks = 0;   // at most; groups are balanced
  std::uint32_t m_blocks = 0, n_groups = 0;
  // K-tiles per segment, at most; segments are balanced. One segment unless a row tile's
  // A^T panel and rows over all of K do not fit SBUF: then each segment is multiplied in
  // turn and its stores add into C (a DMA read-add-write).
  std::uint32_t segment_k_tiles = 0, k_segments = 0;
  std::uint32_t b_slots = 0;   // K-tiles of B in flight (the ring)
  bool b_resident = false;     // all of B's tiles fit the ring: loaded once, kept for every block
  std::uint32_t out_sets = 0;  // output staging, in blocks x groups
  std::uint32_t a_piece_cols = 0;         // columns of A per load
  std::uint32_t transposes_per_bank = 0;  // A^T tiles one PSUM bank holds
  std::uint64_t sbuf_bytes = 0;           // per partition, all allocations
  std::uint32_t bt_slots = 0;             // rows of B^T in flight (b_transposed)

  // What the kernel moves to and from HBM: A once, B once per block (once if resident),
  // C once per segment (read back by every segment after the first).
  std::uint64_t hbm_read_bytes = 0, hbm_write_bytes = 0;
};

// Throws neuronsim::Error when the shape is empty or the target's limits are missing.
GemmPlan plan_gemm(const GemmSpec& spec, const params::TargetLimits& limits);

// The kernel, not yet validated (the caller validates it for the target).
isa::Kernel emit_gemm(const GemmSpec& spec, const params::TargetLimits& limits);

}  // namespace neuronsim::compiler
