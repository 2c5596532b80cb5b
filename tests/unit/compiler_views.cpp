// Slices read in place (docs/compiler.md, "Slices read in place"): in fused mode a slice
// that no matmul launch reads as a tensor is a view of its source's columns, read by the
// row and layout kernels that use it; no launch of its own.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "compiler/compiler.hpp"
#include "config/target_config.hpp"

using namespace neuronsim;
using namespace neuronsim::compiler;

namespace {

// Rotary embedding of one head as HF writes it: x * cos + cat(-x[:, 64:], x[:, :64]) * sin,
// x the columns 128 .. 256 of q.
const std::string kRope = R"({"format": "neuronsim-graph", "version": 1, "name": "rope",
  "inputs": [{"name": "q", "dtype": "bf16", "shape": [256, 256]},
             {"name": "cos", "dtype": "bf16", "shape": [256, 128]},
             {"name": "sin", "dtype": "bf16", "shape": [256, 128]}],
  "nodes": [{"id": "x", "op": "slice", "args": ["q"], "start": 128, "end": 256},
            {"id": "xc", "op": "mul", "args": ["x", "cos"]},
            {"id": "x1", "op": "slice", "args": ["x"], "start": 0, "end": 64},
            {"id": "x2", "op": "slice", "args": ["x"], "start": 64, "end": 128},
            {"id": "n2", "op": "mul", "args": ["x2", -1.0]},
            {"id": "r", "op": "concat", "args": ["n2", "x1"]},
            {"id": "rs", "op": "mul", "args": ["r", "sin"]},
            {"id": "y", "op": "add", "args": ["xc", "rs"]}],
  "outputs": ["y"]})";

std::vector<std::string> names(const std::vector<isa::HbmTensor>& ts, isa::TensorRole role) {
  std::vector<std::string> out;
  for (const auto& t : ts)
    if (t.role == role) out.push_back(t.name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("compiler: fused slices are read in place", "[compiler][views]") {
  const auto cfg = config::load_target("trn2");
  const Graph g = parse_graph(kRope, "rope.json");
  // Eager: every node a launch, the three slices included.
  CHECK(compile(g, Mode::eager, "trn2", cfg.limits, nullptr).launches.size() == 8);
  // Fused: x, x1 and x2 are views of q. The row launch of x * cos and -x2 reads q's
  // columns (both views of one tensor: one HBM input); the concat reads n2 and q's columns
  // 128 .. 192 (x1); the last row launch r * sin + xc. Three launches, none a slice.
  const CompiledProgram p = compile(g, Mode::fused, "trn2", cfg.limits, nullptr);
  REQUIRE(p.launches.size() == 3);
  CHECK(p.launches[0].op == "fused");
  CHECK(p.launches[1].op == "concat");
  CHECK(p.launches[2].op == "fused");
  CHECK(p.launches[0].nodes == std::vector<std::string>{"xc", "n2"});
  using R = isa::TensorRole;
  CHECK(names(p.launches[0].kernel.tensors, R::input) == std::vector<std::string>{"cos", "q"});
  CHECK(names(p.launches[0].kernel.tensors, R::output) == std::vector<std::string>{"n2", "xc"});
  CHECK(names(p.launches[1].kernel.tensors, R::input) == std::vector<std::string>{"n2", "q"});
  CHECK(names(p.launches[2].kernel.tensors, R::input) ==
        std::vector<std::string>{"r", "sin", "xc"});
  for (const auto& t : p.tensors)
    CHECK((t.name != "x" && t.name != "x1" && t.name != "x2"));
}
