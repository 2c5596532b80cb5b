// The graph format (docs/graph.md): parsing, shape and dtype inference, and one test per
// class of error, each checking that the message names the file, the node and the reason.
#include <catch2/catch.hpp>
#include <string>

#include "base/error.hpp"
#include "compiler/graph.hpp"

using namespace neuronsim;
using namespace neuronsim::compiler;

namespace {

// A graph with the given inputs and nodes; outputs the last node "out".
std::string graph(const std::string& inputs, const std::string& nodes,
                  const std::string& outputs = R"(["out"])") {
  return R"({"format": "neuronsim-graph", "version": 1, "name": "g", "inputs": [)" + inputs +
         R"(], "nodes": [)" + nodes + R"(], "outputs": )" + outputs + "}";
}

const std::string kX = R"({"name": "x", "dtype": "bf16", "shape": [256, 64]})";
const std::string kW = R"({"name": "w", "dtype": "bf16", "shape": [64]})";

std::string error_of(const std::string& text) {
  try {
    parse_graph(text, "t.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("compiler: the RMSNorm graph parses with inferred shapes and dtypes", "[compiler]") {
  const Graph g = load_graph(std::string(NEURONSIM_SOURCE_DIR) + "/examples/rmsnorm/rmsnorm.json");
  CHECK(g.name == "rmsnorm");
  REQUIRE(g.nodes.size() == 6);
  CHECK(g.nodes[0].op == OpKind::pow);
  CHECK(g.nodes[0].exponent == 2.0);
  CHECK(g.type_of("sq").shape == std::vector<std::uint64_t>{4096, 4096});
  CHECK(g.type_of("ms").shape == std::vector<std::uint64_t>{4096, 1});  // keepdim
  CHECK(g.type_of("ms").dtype == isa::DType::bf16);                     // mean keeps bf16
  CHECK(g.type_of("y").shape == std::vector<std::uint64_t>{4096, 4096});
  CHECK(g.type_of("y").dtype == isa::DType::bf16);
  CHECK(g.is_output("y"));
  CHECK(g.is_input("w"));
}

TEST_CASE("compiler: broadcasting, dtype promotion and python numbers", "[compiler]") {
  const Graph g =
      parse_graph(graph(kX + "," + kW + R"(, {"name": "s", "dtype": "fp32", "shape": [256, 1]})",
                        R"({"id": "a", "op": "mul", "args": ["x", "w"]},
               {"id": "b", "op": "sub", "args": [1.0, "a"]},
               {"id": "c", "op": "div", "args": ["b", "s"]},
               {"id": "out", "op": "gelu", "args": ["c"], "approximate": "tanh"})"),
                  "t.json");
  CHECK(g.type_of("a").shape == std::vector<std::uint64_t>{256, 64});  // [N,D] * [D]
  CHECK(g.type_of("a").dtype == isa::DType::bf16);
  CHECK(g.type_of("b").dtype == isa::DType::bf16);  // a number takes the tensor's dtype
  CHECK(g.type_of("c").dtype == isa::DType::fp32);  // bf16 / fp32 promotes to fp32
  CHECK(g.type_of("c").shape == std::vector<std::uint64_t>{256, 64});  // [N,D] / [N,1]
  CHECK(g.node("out")->gelu_tanh);
}

TEST_CASE("compiler: matmul, softmax and reductions infer their shapes", "[compiler]") {
  const Graph g = parse_graph(graph(kX + R"(, {"name": "b", "dtype": "bf16", "shape": [64, 32]})",
                                    R"({"id": "m", "op": "matmul", "args": ["x", "b"]},
               {"id": "s", "op": "softmax", "args": ["m"], "dim": 1},
               {"id": "out", "op": "max", "args": ["s"], "axis": -1, "keepdim": true})"),
                              "t.json");
  CHECK(g.type_of("m").shape == std::vector<std::uint64_t>{256, 32});
  CHECK(g.type_of("s").shape == std::vector<std::uint64_t>{256, 32});
  CHECK(g.type_of("out").shape == std::vector<std::uint64_t>{256, 1});
}

TEST_CASE("compiler: parse errors name the file, the node and the reason", "[compiler]") {
  using Catch::Matchers::Contains;
  // Not JSON.
  CHECK_THAT(error_of("{"), Contains("t.json: not valid JSON"));
  // Wrong format tag.
  CHECK_THAT(error_of(R"({"format": "x", "version": 1})"), Contains("\"format\""));
  // Unknown op.
  CHECK_THAT(error_of(graph(kX, R"({"id": "out", "op": "cos", "args": ["x"]})")),
             Contains("t.json: node 'out': unknown op 'cos'"));
  // Operand not defined before use.
  CHECK_THAT(error_of(graph(kX, R"({"id": "out", "op": "exp", "args": ["z"]})")),
             Contains("node 'out': operand 'z' is not an input or an earlier node"));
  // Shapes that do not broadcast.
  CHECK_THAT(error_of(graph(kX + R"(, {"name": "v", "dtype": "bf16", "shape": [32]})",
                            R"({"id": "out", "op": "add", "args": ["x", "v"]})")),
             Contains("node 'out': shapes [256, 64] and [32] do not broadcast"));
  // Wrong number of arguments.
  CHECK_THAT(error_of(graph(kX, R"({"id": "out", "op": "exp", "args": ["x", "x"]})")),
             Contains("node 'out': exp takes 1 argument(s), not 2"));
  // Reduction without keepdim, and along another axis.
  CHECK_THAT(error_of(graph(kX, R"({"id": "out", "op": "sum", "args": ["x"], "dim": -1})")),
             Contains("node 'out': sum needs \"keepdim\": true"));
  CHECK_THAT(error_of(graph(kX, R"({"id": "out", "op": "mean", "args": ["x"], "dim": 0,
                                   "keepdim": true})")),
             Contains("node 'out': only the last axis (dim -1) is supported, not 0"));
  // Unsupported dtype.
  CHECK_THAT(error_of(graph(R"({"name": "x", "dtype": "int8", "shape": [128, 4]})",
                            R"({"id": "out", "op": "exp", "args": ["x"]})")),
             Contains("input 'x': dtype 'int8' is not supported"));
  // A name defined twice.
  CHECK_THAT(error_of(graph(kX, R"({"id": "x", "op": "exp", "args": ["x"]})", R"(["x"])")),
             Contains("node 'x': tensor name 'x' is defined twice"));
  // Matmul contraction mismatch.
  CHECK_THAT(error_of(graph(kX, R"({"id": "out", "op": "matmul", "args": ["x", "x"]})")),
             Contains("node 'out': matmul shapes [256, 64] @ [256, 64] do not agree"));
  // An attribute that does not belong to the op.
  CHECK_THAT(error_of(graph(kX, R"({"id": "out", "op": "exp", "args": ["x"], "keepdim": true})")),
             Contains("node 'out': attribute 'keepdim' does not apply to exp"));
  // An output that is not a node.
  CHECK_THAT(error_of(graph(kX, R"({"id": "out", "op": "exp", "args": ["x"]})", R"(["x"])")),
             Contains("outputs: 'x' is not a node"));
  // pow with a tensor exponent.
  CHECK_THAT(error_of(graph(kX, R"({"id": "out", "op": "pow", "args": ["x", "x"]})")),
             Contains("node 'out': pow's exponent must be a number"));
}

TEST_CASE("compiler: the activation ops log relu sigmoid tanh sin abs parse", "[compiler]") {
  for (const char* op : {"log", "relu", "sigmoid", "tanh", "sin", "abs"}) {
    const Graph g = parse_graph(
        graph(kX, std::string(R"({"id": "out", "op": ")") + op + R"(", "args": ["x"]})"), "t.json");
    CHECK(op_name(g.nodes[0].op) == op);
    CHECK(g.type_of("out").shape == std::vector<std::uint64_t>{256, 64});
  }
}

TEST_CASE("compiler: to converts between float dtypes, naming a bad one", "[compiler]") {
  const Graph g = parse_graph(
      graph(kX, R"({"id": "out", "op": "to", "args": ["x"], "dtype": "fp32"})"), "t.json");
  CHECK(g.type_of("out").dtype == isa::DType::fp32);
  CHECK(g.type_of("out").shape == std::vector<std::uint64_t>{256, 64});
  CHECK(error_of(graph(kX, R"({"id": "out", "op": "to", "args": ["x"], "dtype": "fp8_e4m3"})")) ==
        "t.json: node 'out': to: dtype 'fp8_e4m3' is not supported (bf16, fp16, fp32)");
  CHECK(error_of(graph(kX, R"({"id": "out", "op": "to", "args": ["x"]})")) ==
        "t.json: node 'out': to needs \"dtype\": bf16, fp16 or fp32");
}
