#pragma once
// A matmul node as a kernel of its own: C[M,N] = A[M,K] @ B[K,N] on the Tensor engine.
#include <string>

#include "compiler/graph.hpp"
#include "isa/kernel.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::compiler {

// Any shape; throws neuronsim::Error naming the graph file and node when it does not fit
// SBUF even with one row tile of A on chip (a very large K).
isa::Kernel emit_matmul_kernel(const Graph& g, const Node& n, const std::string& kernel_name,
                               const std::string& target, const params::TargetLimits& limits);

}  // namespace neuronsim::compiler
