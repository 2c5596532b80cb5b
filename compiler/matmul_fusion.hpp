#pragma once
// Fused mode around matmuls (docs/compiler.md, "Fusion around matmuls"): which nodes a
// matmul launch takes in, decided before partitioning.
//   - a slice of a 2-D tensor read as a matmul operand is an offset in the operand's
//     loads; a transpose read as B is done on the Tensor engine (GemmSpec::b_transposed);
//   - elementwise nodes after a matmul (bias, activation, residual, scaling) run on the
//     copy out of PSUM (GemmSpec::epilogue);
//   - the attention pattern softmax(Q @ K^T * c + mask) @ V is one kernel that keeps the
//     scores on chip (compiler/attention_kernel.hpp);
//   - a concat whose every operand is such a launch's result is written in place.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/attention_kernel.hpp"
#include "compiler/gemm.hpp"
#include "compiler/graph.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::compiler {

struct MatmulLaunch {
  bool attention = false;
  GemmSpec gemm;                   // attention == false
  AttentionSpec attn;              // attention == true
  std::vector<std::string> nodes;  // the graph nodes it computes, the matmul first
  std::vector<std::string> reads;  // the HBM tensors it reads (for ordering launches)
};

struct MatmulFusion {
  std::map<std::string, MatmulLaunch> launches;  // by the id of the (first) matmul
  std::set<std::string> absorbed;                // nodes computed inside another launch
};

// `live`: the nodes fused mode keeps.
MatmulFusion plan_matmul_fusion(const Graph& g, const std::set<std::string>& live,
                                const params::TargetLimits& limits);

}  // namespace neuronsim::compiler
