// Shapes as PyTorch has them (docs/compiler.md, "Shapes"): N-D tensors, a partial last
// tile, one fused kernel per row count, dead nodes and unused inputs, [1] operands.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "compiler/compiler.hpp"
#include "config/target_config.hpp"
#include "validate/validate.hpp"

using namespace neuronsim;
using namespace neuronsim::compiler;

namespace {

Graph graph(const std::string& inputs, const std::string& nodes, const std::string& outputs) {
  return parse_graph(R"({"format": "neuronsim-graph", "version": 1, "name": "g", "inputs": [)" +
                         inputs + R"(], "nodes": [)" + nodes + R"(], "outputs": )" + outputs + "}",
                     "t.json");
}

CompiledProgram compile_quiet(const Graph& g, Mode mode) {
  const auto cfg = config::load_target("trn2");
  const CompiledProgram p = compile(g, mode, "trn2", cfg.limits, nullptr);
  for (const auto& l : p.launches)
    CHECK_NOTHROW(isa::validate(l.kernel, cfg.limits, l.neff));
  return p;
}

std::size_t count_opcode(const isa::Kernel& k, isa::Engine e, isa::Opcode op) {
  std::size_t n = 0;
  for (const auto& i : k.stream(e))
    n += i.opcode() == op;
  return n;
}

}  // namespace

TEST_CASE("compiler: N-D tensors keep their shape in HBM, rows flattened on chip", "[compiler]") {
  const Graph g = graph(R"({"name": "x", "dtype": "bf16", "shape": [2, 3, 128, 64]})",
                        R"({"id": "s", "op": "sum", "args": ["x"], "keepdim": true},
                           {"id": "y", "op": "mul", "args": ["x", "s"]})",
                        R"(["y", "s"])");
  CHECK(g.type_of("s").shape == std::vector<std::uint64_t>{2, 3, 128, 1});
  for (Mode mode : {Mode::eager, Mode::fused}) {
    const CompiledProgram p = compile_quiet(g, mode);
    for (const auto& l : p.launches)
      for (const auto& t : l.kernel.tensors)
        if (t.name == "x") CHECK(t.shape == std::vector<std::uint64_t>{2, 3, 128, 64});
  }
  // Fused: 768 rows, 6 tiles, one reduction per tile.
  const CompiledProgram f = compile_quiet(g, Mode::fused);
  REQUIRE(f.launches.size() == 1);
  CHECK(count_opcode(f.launches[0].kernel, isa::Engine::vector, isa::Opcode::tensor_reduce) == 6);
}

TEST_CASE("compiler: rows not a multiple of 128 end in a partial tile", "[compiler]") {
  const Graph g = graph(R"({"name": "x", "dtype": "bf16", "shape": [300, 64]})",
                        R"({"id": "y", "op": "exp", "args": ["x"]})", R"(["y"])");
  const CompiledProgram p = compile_quiet(g, Mode::fused);
  const isa::Kernel& k = p.launches[0].kernel;
  // 300 = 44 + 2 x 128: three tiles, the partial one first (row_kernel.cpp says why).
  const auto& acts = k.stream(isa::Engine::scalar);
  REQUIRE(acts.size() == 3);
  CHECK(std::get<isa::Activation>(acts[0].op).dst.partitions == 44);
  CHECK(std::get<isa::Activation>(acts[1].op).dst.partitions == 128);
}

TEST_CASE("compiler: fused mode makes one kernel per row count", "[compiler]") {
  // The issue's example: q [512, 128] and k^T [128, 512] scaled in one graph.
  const Graph g = graph(R"({"name": "q", "dtype": "bf16", "shape": [512, 128]},
                           {"name": "kt", "dtype": "bf16", "shape": [128, 512]})",
                        R"({"id": "qs", "op": "mul", "args": ["q", 0.125]},
                           {"id": "kts", "op": "mul", "args": ["kt", 0.5]},
                           {"id": "q2", "op": "exp", "args": ["qs"]})",
                        R"(["q2", "kts"])");
  const CompiledProgram p = compile_quiet(g, Mode::fused);
  REQUIRE(p.launches.size() == 2);
  CHECK(p.launches[0].nodes == std::vector<std::string>{"qs", "q2"});
  CHECK(p.launches[1].nodes == std::vector<std::string>{"kts"});
  CHECK(p.launches[1].name == "fused_1");
  // A [D] op feeding [N, D] rows: a one-row kernel first, then the rows.
  const Graph w = graph(R"({"name": "x", "dtype": "bf16", "shape": [256, 64]},
                           {"name": "w", "dtype": "bf16", "shape": [64]})",
                        R"({"id": "x2", "op": "exp", "args": ["x"]},
                           {"id": "w1", "op": "add", "args": ["w", 1]},
                           {"id": "y", "op": "mul", "args": ["x2", "w1"]})",
                        R"(["y"])");
  const CompiledProgram q = compile_quiet(w, Mode::fused);
  REQUIRE(q.launches.size() == 2);
  CHECK(q.launches[0].nodes == std::vector<std::string>{"w1"});
  CHECK(q.launches[1].nodes == std::vector<std::string>{"x2", "y"});
}

TEST_CASE("compiler: dead nodes and unused inputs", "[compiler]") {
  const Graph g = graph(R"({"name": "x", "dtype": "bf16", "shape": [128, 64]},
                           {"name": "u", "dtype": "bf16", "shape": [128, 64]},
                           {"name": "v", "dtype": "bf16", "shape": [128, 64]})",
                        R"({"id": "a", "op": "exp", "args": ["x"]},
                           {"id": "d", "op": "add", "args": ["a", "v"]},
                           {"id": "y", "op": "mul", "args": ["a", 2]})",
                        R"(["y"])");
  const auto cfg = config::load_target("trn2");
  std::ostringstream diag;
  const CompiledProgram f = compile(g, Mode::fused, "trn2", cfg.limits, &diag);
  REQUIRE(f.launches.size() == 1);
  CHECK(f.launches[0].nodes == std::vector<std::string>{"a", "y"});
  // a is not stored: its only other reader was dead.
  for (const auto& t : f.launches[0].kernel.tensors)
    CHECK(t.name != "a");
  REQUIRE(f.warnings.size() == 3);
  CHECK(f.warnings[0] == "t.json: node 'd': no output depends on it; fused mode leaves it out");
  CHECK_THAT(f.warnings[1], Catch::Matchers::StartsWith("t.json: input 'u': "));
  CHECK_THAT(f.warnings[2], Catch::Matchers::StartsWith("t.json: input 'v': "));
  CHECK(diag.str() == "warning: " + f.warnings[0] + "\nwarning: " + f.warnings[1] +
                          "\nwarning: " + f.warnings[2] + "\n");
  for (const auto& t : f.tensors)
    CHECK((t.name == "x" || t.name == "y"));
  // Eager runs every node, as PyTorch does: only u is unused.
  const CompiledProgram e = compile_quiet(g, Mode::eager);
  CHECK(e.launches.size() == 3);
  REQUIRE(e.warnings.size() == 1);
  CHECK_THAT(e.warnings[0], Catch::Matchers::StartsWith("t.json: input 'u': "));
}

TEST_CASE("compiler: a [1] operand is a per-partition scalar", "[compiler]") {
  const Graph g = graph(R"({"name": "x", "dtype": "bf16", "shape": [256, 64]},
                           {"name": "s", "dtype": "bf16", "shape": [1]})",
                        R"({"id": "y", "op": "sub", "args": ["s", "x"]})", R"(["y"])");
  for (Mode mode : {Mode::eager, Mode::fused}) {
    const CompiledProgram p = compile_quiet(g, mode);  // kept: k refers into it
    const isa::Kernel& k = p.launches[0].kernel;
    // Loaded once, broadcast to every partition; one tensor_scalar (reversed) per tile.
    CHECK(count_opcode(k, isa::Engine::vector, isa::Opcode::tensor_scalar) == 2);
    CHECK(count_opcode(k, isa::Engine::vector, isa::Opcode::tensor_tensor) == 0);
  }
}

TEST_CASE("compiler: rows wider than SBUF run in column chunks and phases", "[compiler]") {
  // [256, 32000] softmax: x (bf16), exp (fp32) and y (bf16) take 256 000 B per partition
  // whole, more than trn2's 229 376. Three buffers of 8 B per column fit 9557 columns:
  // 4 chunks of 8000. Online softmax, per tile: phase 0 per chunk the negated max -m_c and
  // exp(x - m_c) with its sum s_c; its tail -M = min(-m_c), the factors exp(m_c - M), their
  // products with s_c and the sum; phase 1 1/sum, then per chunk exp(x - M) * 1/sum.
  const Graph g = graph(R"({"name": "x", "dtype": "bf16", "shape": [256, 32000]})",
                        R"({"id": "y", "op": "softmax", "args": ["x"]})", R"(["y"])");
  for (Mode mode : {Mode::eager, Mode::fused}) {
    const CompiledProgram p = compile_quiet(g, mode);  // kept: k refers into it
    const isa::Kernel& k = p.launches[0].kernel;
    // Per tile (2 tiles): 4 max partials, the min and the sum of products; the products;
    // 1/sum and 4 scalings; 4 + 4 exps and the factors.
    CHECK(count_opcode(k, isa::Engine::vector, isa::Opcode::tensor_reduce) == 2 * (4 + 2));
    CHECK(count_opcode(k, isa::Engine::vector, isa::Opcode::tensor_tensor) == 2 * 1);
    CHECK(count_opcode(k, isa::Engine::vector, isa::Opcode::tensor_scalar) == 2 * (1 + 4));
    CHECK(count_opcode(k, isa::Engine::scalar, isa::Opcode::activation) == 2 * (4 + 1 + 4));
    // x is read twice (one load per chunk and phase), y written once.
    CHECK(count_opcode(k, isa::Engine::sync, isa::Opcode::dma_copy) == 2 * (2 * 4 + 4));
  }
  // One row longer than one instruction's free size (64K elements) in fp32.
  const Graph wide = graph(R"({"name": "x", "dtype": "fp32", "shape": [100, 70000]})",
                           R"({"id": "s", "op": "sum", "args": ["x"], "keepdim": true},
                              {"id": "y", "op": "div", "args": ["x", "s"]})",
                           R"(["y"])");
  CHECK(compile_quiet(wide, Mode::fused).launches.size() == 1);
}
