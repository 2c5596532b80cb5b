#pragma once
// The row program: what the compiler makes of a run of row-wise graph nodes before it
// picks buffers and semaphores. Rows of every tensor map onto the 128 partitions, one
// 128-row tile at a time; each value is a tile per row tile (row: [128, D], stat: [128, 1])
// or a column vector loaded once and broadcast to every partition (col: [D]). Each step is
// one engine instruction per tile; peephole fusion (fusion.cpp) merges steps.
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/column_view.hpp"
#include "compiler/graph.hpp"
#include "isa/engine.hpp"
#include "isa/instruction.hpp"

namespace neuronsim::compiler {

enum class ValueKind : std::uint8_t { row, stat, col };

struct Value {
  std::string name;  // the graph tensor, or "<node>_<part>" for temporaries
  ValueKind kind = ValueKind::row;
  std::uint32_t cols = 1;  // elements per partition
  isa::DType dtype = isa::DType::fp32;
  std::vector<std::uint64_t> shape;  // the HBM tensor's shape (inputs and outputs)
  bool input = false;                // loaded from HBM
  bool output = false;               // stored to HBM
  bool scratch = false;              // written, never read: one buffer, no semaphores
  bool unused = false;               // fused away: no step touches it, so no buffer
  // Set by the emitter's tiling (row_kernel.cpp): an [N, 1] input or output whose tiles all
  // live in one [128, tiles] buffer (column t = tile t), loaded or stored by one DMA.
  bool whole = false;
  // An input read through a column view (compiler/column_view.hpp): its rows are columns
  // source_col0 .. source_col0 + cols of the HBM tensor `source` (shape source_shape).
  std::string source;
  std::vector<std::uint64_t> source_shape;
  std::uint64_t source_col0 = 0;
  bool viewed() const { return !source.empty(); }
  // The HBM tensor a load or store moves, and the elements between its rows.
  const std::string& hbm_name() const { return viewed() ? source : name; }
  const std::vector<std::uint64_t>& hbm_shape() const { return viewed() ? source_shape : shape; }
  std::uint64_t row_stride() const { return viewed() ? source_shape.back() : cols; }
};

// A step operand: a value (index into RowProgram::values) or an fp32 immediate.
struct Arg {
  int value = -1;
  float imm = 0.0f;
  bool is_value() const { return value >= 0; }
  static Arg of(int v) { return Arg{v, 0.0f}; }
  static Arg number(float x) { return Arg{-1, x}; }
};

enum class StepKind : std::uint8_t {
  activation,            // Scalar: dst = func(a * scale + bias), optional add-reduce
  tensor_scalar,         // Vector: dst = (a op0 arg0) op1 arg1, optional reduce
  tensor_tensor,         // Vector: dst = a op0 b
  scalar_tensor_tensor,  // Vector: dst = (a op0 arg0) op1 b
  reduce,                // Vector: dst = reduce_op over the free axis of a (negate)
};

struct Step {
  StepKind kind = StepKind::activation;
  int dst = -1;
  int a = -1, b = -1;
  // activation
  isa::ActFunc func = isa::ActFunc::copy;
  Arg scale = Arg::number(1.0f);
  bool has_bias = false;
  Arg bias;             // a stat value or a constant (kept in a [128, 1] constant tile)
  int reduce_dst = -1;  // activation / tensor_scalar
  // vector ops
  isa::AluOp op0 = isa::AluOp::bypass;
  Arg arg0;
  bool reverse0 = false;
  bool has_op1 = false;
  isa::AluOp op1 = isa::AluOp::bypass;
  Arg arg1;
  bool reverse1 = false;
  isa::AluOp reduce_op = isa::AluOp::add;
  bool negate = false;
  std::vector<std::string> nodes;  // graph nodes this step computes (part of)

  isa::Engine engine() const {
    return kind == StepKind::activation ? isa::Engine::scalar : isa::Engine::vector;
  }
  std::vector<int> reads() const;   // value operands
  std::vector<int> writes() const;  // dst and reduce_dst
};

struct RowProgram {
  std::string name;        // the launch name
  std::uint64_t rows = 0;  // N, a multiple of 128
  std::vector<Value> values;
  std::vector<Step> steps;  // in dependence order
  std::vector<std::string> nodes;
  // Set by the emitter's tiling (row_kernel.cpp). 0: 128 rows per tile, one row per
  // partition. Otherwise the flat layout of a program of [N, 1] values only: partition p
  // holds elements p * N/128 .. of each tensor, flat_cols of them per tile.
  std::uint32_t flat_cols = 0;
  int find(const std::string& name) const;  // value index or -1
};

// Lowers `nodes` (in graph order, none a matmul) into steps, then fuses them.
// `outputs` are the tensors the program must store; an operand in `views` is read in place.
// Unsupported shapes and operand kinds throw neuronsim::Error naming the graph file, the node and
// the reason.
RowProgram select_row_program(const Graph& g, const std::string& name,
                              const std::vector<const Node*>& nodes,
                              const std::vector<std::string>& outputs, const ColumnViews& views);
// Peephole fusion (fusion.cpp), to a fixed point; marks values nobody reads as scratch.
void fuse_steps(RowProgram& p);

}  // namespace neuronsim::compiler
