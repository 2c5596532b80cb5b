#pragma once
// One attention head as one kernel: out = softmax(Q @ K^T * scale + mask) @ V, the
// scores kept on chip (docs/compiler.md, "Attention"). Q [Sq, d], K [Sk, d], V [Sk, dv]
// (d, dv <= 128), an optional additive mask [Sq, Sk]; rows of Q in tiles of 128.
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/gemm.hpp"
#include "isa/kernel.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::compiler {

// One head's HBM tensors, each seen through a view (a slice's columns; the head's columns
// of a concat for out).
struct AttentionHead {
  std::string q, k, v, out;
  GemmView q_view, k_view, v_view, out_view;
};

// Every head has the same shapes, mask and scale; heads run one after another in one
// kernel, the next head's K and V loaded and transposed while the current one runs.
struct AttentionSpec {
  std::string kernel_name = "attention";
  std::string target;
  std::vector<AttentionHead> heads;     // at least one
  std::string mask;                     // HBM tensor; empty: none
  isa::DType dtype = isa::DType::bf16;  // Q, K, V
  isa::DType out_dtype = isa::DType::bf16;
  isa::DType mask_dtype = isa::DType::bf16;
  std::vector<std::uint64_t> mask_shape;
  std::uint32_t sq = 0, sk = 0, d = 0, dv = 0;
  float scale = 1.0f;
};

// Throws neuronsim::Error ("attention: ...") when the shapes do not fit (d or dv over
// 128, a row of scores too long for SBUF).
isa::Kernel emit_attention(const AttentionSpec& spec, const params::TargetLimits& limits);
// The same checks without emitting: true when emit_attention would accept the shapes.
bool attention_fits(const AttentionSpec& spec, const params::TargetLimits& limits);

}  // namespace neuronsim::compiler
