#pragma once
// A tensor program in PyTorch terms (docs/graph.md): named inputs with shape and dtype, a
// list of nodes (op, operands, attributes) in any order that respects their operands, and
// the output tensors. Parsing checks every node and infers every tensor's shape and dtype,
// so the compiler only ever sees a well-formed graph.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "isa/dtype.hpp"

namespace neuronsim::compiler {

struct TensorType {
  isa::DType dtype = isa::DType::fp32;
  std::vector<std::uint64_t> shape;  // rank >= 1
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
};
std::string shape_text(const std::vector<std::uint64_t>& shape);  // "[4096, 4096]"
// The rows a row kernel sees: the leading dimensions flattened (1 for a 1-D tensor), as
// torch's x.view(-1, x.shape[-1]).
std::uint64_t flat_rows(const std::vector<std::uint64_t>& shape);

// One operand: a tensor (an input or an earlier node's id) or a number (a Python scalar).
struct Operand {
  std::string tensor;  // empty: a number
  double number = 0.0;
  bool is_tensor() const { return !tensor.empty(); }
};

enum class OpKind : std::uint8_t {
  square,
  pow,
  mean,
  sum,
  max,
  add,
  sub,
  mul,
  div,
  rsqrt,
  sqrt,
  exp,
  reciprocal,
  matmul,
  softmax,
  silu,
  gelu,
  transpose,  // a 2-D tensor's two axes swapped (x.t())
  slice,      // a column range of the last axis (x[..., start:end])
  concat,     // tensors joined along the last axis (torch.cat(dim=-1))
  to,         // a float dtype conversion (x.to(dtype)): the result stored in that dtype
  log,
  relu,
  sigmoid,
  tanh,
  sin,
  abs,
};
std::string op_name(OpKind op);

struct Node {
  std::string id;  // also the name of its result tensor
  OpKind op = OpKind::add;
  std::vector<Operand> args;
  double exponent = 0.0;             // pow
  bool gelu_tanh = false;            // gelu with approximate = "tanh"
  std::uint64_t start = 0, end = 0;  // slice: columns start .. end - 1 of the last axis
  TensorType type;                   // inferred
};

struct GraphInput {
  std::string name;
  TensorType type;
};

struct Graph {
  std::string name;
  std::string source;  // file name, for messages
  std::vector<GraphInput> inputs;
  std::vector<Node> nodes;  // topologically ordered (operands before users)
  std::vector<std::string> outputs;

  // The type of an input or node result; throws naming the tensor when unknown.
  const TensorType& type_of(const std::string& tensor) const;
  const Node* node(const std::string& id) const;  // nullptr for inputs
  bool is_input(const std::string& tensor) const;
  bool is_output(const std::string& tensor) const;
};

// Throws neuronsim::Error "<source>: node '<id>': <reason>" (or naming the input or key).
Graph parse_graph(const std::string& json_text, const std::string& source);
Graph load_graph(const std::string& path);

}  // namespace neuronsim::compiler
