// The compiler's lowering (docs/compiler.md): eager makes one kernel per node, fused one
// kernel for the row-wise nodes with the engines and fusions of a hand-written kernel;
// every kernel validates for its target; shapes that do not fit fail with a clear error.
#include <catch2/catch.hpp>
#include <string>

#include "base/error.hpp"
#include "compiler/compiler.hpp"
#include "config/target_config.hpp"
#include "validate/validate.hpp"

using namespace neuronsim;
using namespace neuronsim::compiler;

namespace {

Graph example_graph(const std::string& name) {
  return load_graph(std::string(NEURONSIM_SOURCE_DIR) + "/examples/rmsnorm/" + name + ".json");
}

std::size_t count_opcode(const isa::Kernel& k, isa::Engine e, isa::Opcode op) {
  std::size_t n = 0;
  for (const auto& i : k.stream(e))
    n += i.opcode() == op;
  return n;
}

std::string compile_error(const std::string& text, Mode mode) {
  const auto cfg = config::load_target("trn2");
  try {
    compile(parse_graph(text, "t.json"), mode, "trn2", cfg.limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("compiler: eager RMSNorm is one valid kernel per node", "[compiler]") {
  const auto cfg = config::load_target("trn1");
  const CompiledProgram p =
      compile(example_graph("rmsnorm_small"), Mode::eager, "trn1", cfg.limits);
  REQUIRE(p.launches.size() == 6);
  const char* ops[] = {"pow", "mean", "add", "rsqrt", "mul", "mul"};
  for (std::size_t i = 0; i < 6; ++i) {
    const CompiledLaunch& l = p.launches[i];
    CHECK(l.op == ops[i]);
    REQUIRE(l.nodes.size() == 1);
    CHECK(l.name == l.nodes[0]);
    CHECK_NOTHROW(isa::validate(l.kernel, cfg.limits, l.neff));
    // Each result goes to HBM as its own output tensor, in the graph's dtype.
    std::size_t outputs = 0;
    for (const auto& t : l.kernel.tensors)
      if (t.role == isa::TensorRole::output) {
        ++outputs;
        CHECK(t.name == l.nodes[0]);
        CHECK(t.dtype == isa::DType::bf16);
      }
    CHECK(outputs == 1);
  }
  CHECK(p.launches[0].neff == "00_sq.neff");
  // 128 rows: one tile: load, one instruction, store.
  CHECK(count_opcode(p.launches[0].kernel, isa::Engine::scalar, isa::Opcode::activation) == 1);
  // mean on Vector: reduce, then * 1/D.
  CHECK(count_opcode(p.launches[1].kernel, isa::Engine::vector, isa::Opcode::tensor_reduce) == 1);
  CHECK(count_opcode(p.launches[1].kernel, isa::Engine::vector, isa::Opcode::tensor_scalar) == 1);
  // The intermediates are listed with role intermediate.
  std::size_t intermediates = 0;
  for (const auto& t : p.tensors)
    intermediates += t.role == TensorPlace::intermediate;
  CHECK(intermediates == 5);
}

TEST_CASE("compiler: fused RMSNorm is one kernel with the hand-fused instruction stream",
          "[compiler]") {
  const auto cfg = config::load_target("trn2");
  const Graph g = example_graph("rmsnorm_small");
  const CompiledProgram p = compile(g, Mode::fused, "trn2", cfg.limits);
  REQUIRE(p.launches.size() == 1);
  const isa::Kernel& k = p.launches[0].kernel;
  CHECK(p.launches[0].op == "fused");
  CHECK(p.launches[0].nodes.size() == 6);
  CHECK_NOTHROW(isa::validate(k, cfg.limits, "fused"));
  // Per tile: square + mean as one Scalar activation with its add-reduce, + eps and rsqrt
  // as one activation with a bias, x * rstd * w as one Vector scalar_tensor_tensor.
  const auto& scalar = k.stream(isa::Engine::scalar);
  REQUIRE(scalar.size() == 2);
  const auto sq = std::get<isa::Activation>(scalar[0].op);
  CHECK(sq.func == isa::ActFunc::square);
  CHECK(sq.reduce_dst.has_value());
  CHECK(std::get<float>(sq.scale) == Approx(1.0 / std::sqrt(2048.0)));  // mean's 1/D folded
  const auto rs = std::get<isa::Activation>(scalar[1].op);
  CHECK(rs.func == isa::ActFunc::rsqrt);
  CHECK(rs.bias.has_value());
  const auto& vec = k.stream(isa::Engine::vector);
  REQUIRE(vec.size() == 2);
  CHECK(vec[0].opcode() == isa::Opcode::memset);  // the eps bias tile
  CHECK(vec[1].opcode() == isa::Opcode::scalar_tensor_tensor);
  // Only the program's inputs and output are in HBM.
  CHECK(k.tensors.size() == 3);
  for (const auto& t : p.tensors)
    CHECK(t.role != TensorPlace::intermediate);
}

TEST_CASE("compiler: fused [4096, 4096] RMSNorm triple-buffers 32 tiles and validates",
          "[compiler]") {
  for (const char* target : {"trn1", "trn2"}) {
    const auto cfg = config::load_target(target);
    const CompiledProgram p = compile(example_graph("rmsnorm"), Mode::fused, target, cfg.limits);
    REQUIRE(p.launches.size() == 1);
    const isa::Kernel& k = p.launches[0].kernel;
    CHECK_NOTHROW(isa::validate(k, cfg.limits, target));
    // 32 tiles x (square-reduce, rsqrt) on Scalar; 32 stt + 1 memset on Vector;
    // 32 loads + 32 stores + the w load on Sync.
    CHECK(k.stream(isa::Engine::scalar).size() == 64);
    CHECK(k.stream(isa::Engine::vector).size() == 33);
    CHECK(k.stream(isa::Engine::sync).size() == 65);
    for (const auto& a : k.allocations)
      // Three slots of 8 KiB per partition for x and y fit easily (docs/compiler.md).
      if (a.name == "x_sb") CHECK(a.free_shape == std::vector<std::uint32_t>{3, 4096});
  }
}

TEST_CASE("compiler: fused softmax and MLP pick the engines and split at matmuls", "[compiler]") {
  const auto cfg = config::load_target("trn2");
  const CompiledProgram s =
      compile(example_graph("softmax_naive_small"), Mode::fused, "trn2", cfg.limits);
  REQUIRE(s.launches.size() == 1);
  const isa::Kernel& k = s.launches[0].kernel;
  // Per tile (2 tiles): max (negated) on Vector, exp with bias and add-reduce on Scalar,
  // e / sum on Vector.
  CHECK(count_opcode(k, isa::Engine::vector, isa::Opcode::tensor_reduce) == 2);
  CHECK(count_opcode(k, isa::Engine::scalar, isa::Opcode::activation) == 2);
  CHECK(count_opcode(k, isa::Engine::vector, isa::Opcode::tensor_scalar) == 2);
  const auto e = std::get<isa::Activation>(k.stream(isa::Engine::scalar)[0].op);
  CHECK(e.func == isa::ActFunc::exp);
  CHECK(e.bias.has_value());
  CHECK(e.reduce_dst.has_value());

  // silu(x @ w_gate) * (x @ w_up): silu runs on gate's PSUM copy, the product on up's
  // (docs/compiler.md, "Fusion around matmuls"), so no row launch is left.
  const CompiledProgram m = compile(example_graph("mlp_small"), Mode::fused, "trn2", cfg.limits);
  REQUIRE(m.launches.size() == 2);
  CHECK(m.launches[0].op == "matmul");
  CHECK(m.launches[1].op == "matmul");
  CHECK(m.launches[0].nodes == std::vector<std::string>{"gate", "act"});
  CHECK(m.launches[1].nodes == std::vector<std::string>{"up", "h"});
  CHECK(count_opcode(m.launches[0].kernel, isa::Engine::tensor, isa::Opcode::matmul) == 4);
  for (const auto& l : m.launches)
    CHECK_NOTHROW(isa::validate(l.kernel, cfg.limits, l.neff));
}

TEST_CASE("compiler: compile errors name the tensor or launch and the reason", "[compiler]") {
  using Catch::Matchers::Contains;
  const std::string head = R"({"format": "neuronsim-graph", "version": 1, "name": "g", )";
  // Broadcasting over a leading dimension: [1, 8, 64] * [8, 1, 64] is [8, 8, 64], 64 rows
  // from operands of 8 rows each. The message names the node.
  CHECK_THAT(compile_error(head + R"("inputs": [{"name": "a", "dtype": "bf16", "shape": [1, 8, 64]},
      {"name": "b", "dtype": "bf16", "shape": [8, 1, 64]}],
      "nodes": [{"id": "y", "op": "mul", "args": ["a", "b"]}], "outputs": ["y"]})",
                           Mode::fused),
             Contains("t.json: node 'y': tensor 'a' [1, 8, 64] has 8 rows, but this kernel "
                      "tiles 64 rows (broadcasting over leading dimensions is not supported)"));
}

TEST_CASE("compiler: launch.json lists tensors and launches in the agreed format", "[compiler]") {
  const auto cfg = config::load_target("trn2");
  const std::string text =
      launch_json(compile(example_graph("rmsnorm_small"), Mode::eager, "trn2", cfg.limits));
  CHECK_THAT(text,
             Catch::Matchers::StartsWith("{\n  \"format\": \"neuronsim-launch-sequence\",\n"
                                         "  \"version\": 1,\n  \"program\": \"rmsnorm_small\""));
  CHECK_THAT(text, Catch::Matchers::Contains("\"mode\": \"eager\""));
  CHECK_THAT(text, Catch::Matchers::Contains("\"role\": \"intermediate\""));
  CHECK_THAT(text, Catch::Matchers::Contains("\"neff\": \"05_y.neff\""));
  // Deterministic.
  CHECK(text ==
        launch_json(compile(example_graph("rmsnorm_small"), Mode::eager, "trn2", cfg.limits)));
}
