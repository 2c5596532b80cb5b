// Fusion around matmuls (docs/compiler.md, "Fusion around matmuls"): the new layout ops
// parse, eager keeps one kernel per op, fused takes slices, transposes, epilogues, concats
// and the attention pattern into the matmul launches, and falls back to launches of their
// own when a rule does not apply.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "base/error.hpp"
#include "compiler/compiler.hpp"
#include "compiler/gemm.hpp"
#include "config/target_config.hpp"
#include "validate/validate.hpp"

using namespace neuronsim;
using namespace neuronsim::compiler;

namespace {

const std::string kHead = R"({"format": "neuronsim-graph", "version": 1, "name": "g", )";

std::size_t count_opcode(const isa::Kernel& k, isa::Engine e, isa::Opcode op) {
  std::size_t n = 0;
  for (const auto& i : k.stream(e))
    n += i.opcode() == op;
  return n;
}

std::vector<std::string> ops_of(const CompiledProgram& p) {
  std::vector<std::string> ops;
  for (const auto& l : p.launches)
    ops.push_back(l.op);
  return ops;
}

// softmax(q[:, 64:128] @ k[:, 64:128].T * 0.125 + mask) @ v[:, 64:128] on S tokens.
std::string attention_graph(int s, bool mask) {
  const std::string n = std::to_string(s);
  return kHead + R"("inputs": [{"name": "q", "dtype": "bf16", "shape": [)" + n +
         R"(, 128]}, {"name": "k", "dtype": "bf16", "shape": [)" + n +
         R"(, 128]}, {"name": "v", "dtype": "bf16", "shape": [)" + n +
         R"(, 128]}, {"name": "m", "dtype": "bf16", "shape": [)" + n + ", " + n + R"(]}],
    "nodes": [{"id": "q1", "op": "slice", "args": ["q"], "start": 64, "end": 128},
              {"id": "k1", "op": "slice", "args": ["k"], "start": 64, "end": 128},
              {"id": "v1", "op": "slice", "args": ["v"], "start": 64, "end": 128},
              {"id": "kt", "op": "transpose", "args": ["k1"]},
              {"id": "s", "op": "matmul", "args": ["q1", "kt"]},
              {"id": "ss", "op": "mul", "args": ["s", 0.125]},
              )" +
         (mask ? R"({"id": "sm", "op": "add", "args": ["ss", "m"]},
              {"id": "p", "op": "softmax", "args": ["sm"]},)"
               : R"({"id": "p", "op": "softmax", "args": ["ss"]},)") +
         R"(
              {"id": "o", "op": "matmul", "args": ["p", "v1"]}], "outputs": ["o"]})";
}

}  // namespace

TEST_CASE("compiler: transpose, slice and concat infer their shapes", "[compiler][fusion]") {
  const Graph g = parse_graph(kHead + R"("inputs": [
      {"name": "a", "dtype": "bf16", "shape": [256, 96]},
      {"name": "b", "dtype": "bf16", "shape": [256, 32]}],
      "nodes": [{"id": "t", "op": "transpose", "args": ["a"], "dim0": -1, "dim1": 0},
                {"id": "s", "op": "slice", "args": ["a"], "dim": -1, "start": 16, "end": 48},
                {"id": "c", "op": "concat", "args": ["s", "b", "s"], "dim": -1}],
      "outputs": ["t", "c"]})",
                              "t.json");
  CHECK(g.type_of("t").shape == std::vector<std::uint64_t>{96, 256});
  CHECK(g.type_of("s").shape == std::vector<std::uint64_t>{256, 32});
  CHECK(g.node("s")->start == 16);
  CHECK(g.type_of("c").shape == std::vector<std::uint64_t>{256, 96});
  auto bad = [&](const std::string& nodes) {
    try {
      parse_graph(kHead + R"("inputs": [{"name": "a", "dtype": "bf16", "shape": [4, 8]},
          {"name": "c", "dtype": "bf16", "shape": [2, 8]}], "nodes": [)" +
                      nodes + R"(], "outputs": ["y"]})",
                  "t.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(bad(R"({"id": "y", "op": "slice", "args": ["a"], "start": 4, "end": 9})") ==
        "t.json: node 'y': slice 4:9 is empty or outside the last axis of [4, 8]");
  CHECK(bad(R"({"id": "y", "op": "slice", "args": ["a"], "start": 0})") ==
        "t.json: node 'y': slice needs \"end\", a non-negative integer");
  CHECK(bad(R"({"id": "y", "op": "concat", "args": ["a", "c"]})") ==
        "t.json: node 'y': concat operands must have one dtype and the same leading "
        "dimensions, not [4, 8] and [2, 8]");
  CHECK(bad(R"({"id": "y", "op": "transpose", "args": ["a"], "dim0": 0, "dim1": 0})") ==
        "t.json: node 'y': \"dim0\" and \"dim1\" must name the two axes (0 and 1)");
  CHECK(bad(R"({"id": "y", "op": "slice", "args": ["a"], "dim": 0, "start": 0, "end": 1})") ==
        "t.json: node 'y': only the last axis (dim -1) is supported, not 0");
}

TEST_CASE("compiler: fused attention is one kernel, eager one per op", "[compiler][fusion]") {
  const auto cfg = config::load_target("trn2");
  const Graph g = parse_graph(attention_graph(2048, true), "t.json");
  const CompiledProgram eager = compile(g, Mode::eager, "trn2", cfg.limits);
  CHECK(ops_of(eager) == std::vector<std::string>{"slice", "slice", "slice", "transpose", "matmul",
                                                  "mul", "add", "softmax", "matmul"});
  const CompiledProgram fused = compile(g, Mode::fused, "trn2", cfg.limits);
  REQUIRE(ops_of(fused) == std::vector<std::string>{"attention"});
  CHECK(fused.launches[0].nodes == std::vector<std::string>{"s", "ss", "sm", "p", "o"});
  const isa::Kernel& k = fused.launches[0].kernel;
  // HBM: q, k, v (whole, read through views), the mask and o; nothing in between.
  CHECK(k.tensors.size() == 5);
  // 16 row tiles: per tile 4 score matmuls (512 keys each) and 16 P @ V matmuls; one
  // transpose of Q and 16 of P per tile, 16 of K once.
  CHECK(count_opcode(k, isa::Engine::tensor, isa::Opcode::matmul) == 16 * (4 + 16));
  CHECK(count_opcode(k, isa::Engine::tensor, isa::Opcode::transpose) == 16 * 17 + 16);
  // One exp (with its row sum) per tile on Scalar, one max per tile on Vector.
  CHECK(count_opcode(k, isa::Engine::vector, isa::Opcode::tensor_reduce) == 16);
  // Only the program's input and output tensors are listed.
  CHECK(fused.tensors.size() == 5);
}

TEST_CASE("compiler: fused epilogues, B transposed, concat in place", "[compiler][fusion]") {
  const auto cfg = config::load_target("trn2");
  const Graph g = parse_graph(kHead + R"("inputs": [
      {"name": "x", "dtype": "bf16", "shape": [256, 256]},
      {"name": "w", "dtype": "bf16", "shape": [256, 512]},
      {"name": "b", "dtype": "bf16", "shape": [512]},
      {"name": "r", "dtype": "bf16", "shape": [256, 512]},
      {"name": "y", "dtype": "bf16", "shape": [384, 256]}],
      "nodes": [{"id": "h", "op": "matmul", "args": ["x", "w"]},
                {"id": "hb", "op": "add", "args": ["h", "b"]},
                {"id": "hs", "op": "mul", "args": ["hb", 0.5]},
                {"id": "ha", "op": "silu", "args": ["hs"]},
                {"id": "hr", "op": "add", "args": ["ha", "r"]},
                {"id": "yt", "op": "transpose", "args": ["y"]},
                {"id": "z", "op": "matmul", "args": ["x", "yt"]},
                {"id": "c", "op": "concat", "args": ["hr", "z"]}],
      "outputs": ["c"]})",
                              "t.json");
  CHECK(compile(g, Mode::eager, "trn2", cfg.limits).launches.size() == 8);
  const CompiledProgram p = compile(g, Mode::fused, "trn2", cfg.limits);
  REQUIRE(ops_of(p) == std::vector<std::string>{"matmul", "matmul"});
  CHECK(p.launches[0].nodes == std::vector<std::string>{"h", "hb", "hs", "ha", "hr", "c"});
  CHECK(p.launches[1].nodes == std::vector<std::string>{"z", "c"});
  const isa::Kernel& h = p.launches[0].kernel;
  // Per [128, 512] bank: Vector adds the bias, Scalar silu(0.5 x) (the scale folded),
  // Vector adds r: 2 row tiles x 1 bank, three instructions each.
  CHECK(count_opcode(h, isa::Engine::vector, isa::Opcode::tensor_tensor) == 2 * 2);
  std::size_t silu = 0;
  for (const auto& i : h.stream(isa::Engine::scalar))
    if (const auto* a = std::get_if<isa::Activation>(&i.op))
      silu += a->func == isa::ActFunc::silu && a->scale == isa::ScalarArg(0.5f);
  CHECK(silu == 2);
  // The transposed B: 3 row tiles of y x 2 K-tiles, on the Tensor engine, besides A's 4.
  CHECK(count_opcode(p.launches[1].kernel, isa::Engine::tensor, isa::Opcode::transpose) ==
        3 * 2 + 2 * 2);
  // c is the only output tensor; h, hr, z and yt never reach HBM.
  REQUIRE(p.tensors.size() == 6);
  CHECK(p.tensors.back().name == "c");
}

TEST_CASE("compiler: fusion falls back where a rule does not apply", "[compiler][fusion]") {
  const auto cfg = config::load_target("trn2");
  // A transposed B too large to keep in SBUF: the transpose is a launch of its own.
  GemmSpec s;
  s.m = 256;
  s.k = 8192;
  s.n = 16384;
  s.b_transposed = true;
  CHECK_THROWS_WITH(plan_gemm(s, cfg.limits), Catch::Contains("does not fit SBUF whole"));
  const Graph big = parse_graph(kHead + R"("inputs": [
      {"name": "x", "dtype": "bf16", "shape": [256, 8192]},
      {"name": "y", "dtype": "bf16", "shape": [16384, 8192]}],
      "nodes": [{"id": "yt", "op": "transpose", "args": ["y"]},
                {"id": "z", "op": "matmul", "args": ["x", "yt"]}], "outputs": ["z"]})",
                                "t.json");
  CHECK(ops_of(compile(big, Mode::fused, "trn2", cfg.limits)) ==
        std::vector<std::string>{"transpose", "matmul"});
  // A slice also read by a row op: the matmul reads it through its own view, and the row
  // launch reads it in place (docs/compiler.md, "Slices read in place"): no slice launch.
  const Graph shared = parse_graph(kHead + R"("inputs": [
      {"name": "x", "dtype": "bf16", "shape": [128, 256]},
      {"name": "w", "dtype": "bf16", "shape": [128, 128]}],
      "nodes": [{"id": "xs", "op": "slice", "args": ["x"], "start": 128, "end": 256},
                {"id": "z", "op": "matmul", "args": ["xs", "w"]},
                {"id": "e", "op": "exp", "args": ["xs"]},
                {"id": "y", "op": "add", "args": ["z", "e"]}], "outputs": ["y"]})",
                                   "t.json");
  const CompiledProgram p = compile(shared, Mode::fused, "trn2", cfg.limits);
  // z, then exp(xs) and z + e in one row launch.
  CHECK(ops_of(p) == std::vector<std::string>{"matmul", "fused"});
  // Attention without the mask still fuses; with 2049 keys the scores need 5 banks plus
  // transposes and the output: more than 8, so the pattern runs as its ops.
  CHECK(ops_of(compile(parse_graph(attention_graph(256, false), "t.json"), Mode::fused, "trn2",
                       cfg.limits)) == std::vector<std::string>{"attention"});
  const CompiledProgram wide =
      compile(parse_graph(attention_graph(2600, true), "t.json"), Mode::fused, "trn2", cfg.limits);
  CHECK(wide.launches.size() > 1);
}

TEST_CASE("compiler: the decoder layer's heads share one attention launch", "[compiler][fusion]") {
  const auto cfg = config::load_target("trn2");
  const Graph g = load_graph(std::string(NEURONSIM_SOURCE_DIR) +
                             "/examples/transformer/decoder_layer_small.json");
  const CompiledProgram eager = compile(g, Mode::eager, "trn2", cfg.limits);
  CHECK(eager.launches.size() == g.nodes.size());
  const CompiledProgram p = compile(g, Mode::fused, "trn2", cfg.limits);
  // RMSNorm, q (2), k (2), v, attention (both heads), out projection + residual, RMSNorm,
  // gate + silu, up * that, down + residual.
  CHECK(ops_of(p) == std::vector<std::string>{"fused", "matmul", "matmul", "matmul", "matmul",
                                              "matmul", "attention", "matmul", "fused", "matmul",
                                              "matmul", "matmul"});
  const CompiledLaunch& a = p.launches[6];
  CHECK(std::count(a.nodes.begin(), a.nodes.end(), "o1") == 1);
  CHECK(std::count(a.nodes.begin(), a.nodes.end(), "attn") == 1);
  // 200 tokens: 2 row tiles (one partial) per head; per head 2 transposes of K (keys in
  // 128s), per tile one of Q and 2 of P.
  CHECK(count_opcode(a.kernel, isa::Engine::tensor, isa::Opcode::transpose) == 2 * (2 + 2 * 3));
  for (const auto& l : p.launches)
    CHECK_NOTHROW(isa::validate(l.kernel, cfg.limits, l.neff));
}
