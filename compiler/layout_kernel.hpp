#pragma once
// Kernels that only move data (docs/compiler.md, "Layout ops"): slice, concat and a
// transpose that no matmul absorbs. Each 128-row tile of the result is assembled in SBUF
// from DMA loads of its sources and stored; nothing computes.
#include <string>

#include "compiler/column_view.hpp"
#include "compiler/graph.hpp"
#include "isa/kernel.hpp"
#include "params/target_limits.hpp"

namespace neuronsim::compiler {

// `n` is a slice, concat or transpose node. A transpose loads with a transposing DMA
// pattern (one element per descriptor row, the DMA's slow path: the Tensor-engine
// transpose is used where a matmul reads the result, docs/compiler.md). An operand in
// `views` is read in place, as columns of its source.
isa::Kernel emit_layout_kernel(const Graph& g, const Node& n, const std::string& kernel_name,
                               const std::string& target, const params::TargetLimits& limits,
                               const ColumnViews& views);

}  // namespace neuronsim::compiler
