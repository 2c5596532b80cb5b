// Splitting a fused row launch past the target's semaphores (docs/compiler.md, "Splitting
// a row launch"): a group of row nodes that one kernel cannot synchronise becomes several
// launches, packed by independent parts, or cut node by node within one part; every kernel
// validates, none is past the limit, and a group that fits stays one launch.
#include <catch2/catch.hpp>
#include <string>

#include "compiler/compiler.hpp"
#include "config/target_config.hpp"
#include "validate/validate.hpp"

using namespace neuronsim;
using namespace neuronsim::compiler;

namespace {

const std::string kHead = R"({"format": "neuronsim-graph", "version": 1, "name": "g", )";

std::string input(const std::string& name) {
  return R"({"name": ")" + name + R"(", "dtype": "bf16", "shape": [256, 64]})";
}

// `heads` independent parts y_h = x_h * 2, every y_h an output.
std::string heads_graph(int heads) {
  std::string inputs, nodes, outputs;
  for (int h = 0; h < heads; ++h) {
    const std::string i = std::to_string(h);
    inputs += (h ? ", " : "") + input("x" + i);
    nodes += std::string(h ? ", " : "") + R"({"id": "y)" + i + R"(", "op": "mul", "args": ["x)" +
             i + R"(", 2.0]})";
    outputs += std::string(h ? ", " : "") + "\"y" + i + "\"";
  }
  return kHead + "\"inputs\": [" + inputs + "], \"nodes\": [" + nodes + "], \"outputs\": [" +
         outputs + "]}";
}

// One connected part: t_1 = x_0 + x_1, t_i = t_{i-1} + x_i, the output t_n.
std::string chain_graph(int n) {
  std::string inputs = input("x0"), nodes;
  for (int i = 1; i <= n; ++i) {
    const std::string s = std::to_string(i);
    inputs += ", " + input("x" + s);
    const std::string prev = i == 1 ? "x0" : "t" + std::to_string(i - 1);
    nodes += std::string(i > 1 ? ", " : "") + R"({"id": "t)" + s + R"(", "op": "add", "args": [")" +
             prev + R"(", "x)" + s + R"("]})";
  }
  return kHead + "\"inputs\": [" + inputs + "], \"nodes\": [" + nodes + "], \"outputs\": [\"t" +
         std::to_string(n) + "\"]}";
}

CompiledProgram fused(const std::string& json) {
  const config::TargetConfig cfg = config::load_target("trn2");
  return compile(parse_graph(json, "split.json"), Mode::fused, "trn2", cfg.limits, nullptr);
}

}  // namespace

TEST_CASE("compiler: a row launch past the semaphores splits by independent parts",
          "[compiler][split]") {
  const config::TargetConfig cfg = config::load_target("trn2");
  REQUIRE(cfg.limits.semaphores == 64);
  // Per part y_h = x_h * 2 the kernel has three operations another engine waits for: the
  // load of x_h (the multiply waits for it), the multiply (the store waits for it, and the
  // load of the tile three ahead, write after read) and the store (the multiply of the tile
  // three ahead waits for it); plus 2 (the prologue's and the count's margin,
  // row_kernel.cpp): 3 H + 2 semaphores. 3 H + 2 <= 64 for H <= 20, so 20 heads fit one
  // kernel and 32 are two launches, 20 heads (62 semaphores) and 12 (38).
  const CompiledProgram twenty = fused(heads_graph(20));
  REQUIRE(twenty.launches.size() == 1);
  CHECK(twenty.launches[0].kernel.semaphores.size() == 3 * 20 + 1);  // declared: 3 H + 1
  const CompiledProgram p = fused(heads_graph(32));
  REQUIRE(p.launches.size() == 2);
  CHECK(p.launches[0].name == "fused");
  CHECK(p.launches[1].name == "fused_1");
  CHECK(p.launches[0].nodes.size() == 20);
  CHECK(p.launches[1].nodes.size() == 12);
  CHECK(p.launches[0].nodes.front() == "y0");
  CHECK(p.launches[1].nodes.front() == "y20");
  for (const auto& l : p.launches) {
    CHECK(l.kernel.semaphores.size() <= cfg.limits.semaphores);
    CHECK_NOTHROW(isa::validate(l.kernel, cfg.limits, l.name));
  }
  // No tensor crosses the cut: the parts are independent, so HBM holds inputs and outputs.
  for (const auto& t : p.tensors)
    CHECK(t.role != TensorPlace::intermediate);
}

TEST_CASE("compiler: one part past the semaphores is cut node by node", "[compiler][split]") {
  // t_i = t_{i-1} + x_i on the Vector engine: the adds run in order and need no semaphore
  // between them; each load of x_i is waited for (by its add) and each add reading a loaded
  // input too (write after read, by the load three tiles ahead), and the store of the last
  // result and the add that writes it: a prefix t_1 .. t_k needs (k + 1) loads + k adds + 1
  // store + 2 = 2 k + 4 semaphores, so k <= 30 (64). The next launch loads t_30 back and
  // x_31 .. x_60: 31 loads + 30 adds + 1 + 2 = 64 again; t_61 .. t_69 are the third
  // (10 loads + 9 adds + 1 + 2 = 22). Whole, it would need 70 + 69 + 1 + 2 = 142.
  const CompiledProgram p = fused(chain_graph(69));
  REQUIRE(p.launches.size() == 3);
  CHECK(p.launches[0].nodes.size() == 30);
  CHECK(p.launches[1].nodes.size() == 30);
  CHECK(p.launches[2].nodes.size() == 9);
  CHECK(p.launches[0].nodes.back() == "t30");
  CHECK(p.launches[1].nodes.back() == "t60");
  CHECK(p.launches[0].kernel.semaphores.size() == 63);  // 2 k + 3 declared
  CHECK(p.launches[2].kernel.semaphores.size() == 21);
  int intermediates = 0;
  for (const auto& t : p.tensors)
    intermediates += t.role == TensorPlace::intermediate;
  CHECK(intermediates == 2);  // t_30 and t_60, stored by one launch and loaded by the next
}
