// Matmul lowering (docs/compiler.md, "Matmul"): a matmul node is a launch of its own, made
// by the GEMM generator (compiler/gemm.hpp) that `neuronsim example matmul` uses too.
#include "compiler/matmul_kernel.hpp"

#include <limits>

#include "base/error.hpp"
#include "compiler/gemm.hpp"

namespace neuronsim::compiler {

isa::Kernel emit_matmul_kernel(const Graph& g, const Node& n, const std::string& kernel_name,
                               const std::string& target, const params::TargetLimits& limits) {
  auto fail = [&](const std::string& reason) {
    throw Error(g.source + ": node '" + n.id + "': matmul: " + reason);
  };
  const TensorType& a = g.type_of(n.args[0].tensor);
  const TensorType& b = g.type_of(n.args[1].tensor);
  for (std::uint64_t d : {a.shape[0], a.shape[1], b.shape[1]})
    if (d > std::numeric_limits<std::uint32_t>::max())
      fail("a dimension of " + std::to_string(d) + " is too large");
  GemmSpec s;
  s.kernel_name = kernel_name;
  s.target = target;
  s.a_name = n.args[0].tensor;
  s.b_name = n.args[1].tensor;
  s.c_name = n.id;
  s.in_dtype = a.dtype;
  s.out_dtype = n.type.dtype;
  s.m = static_cast<std::uint32_t>(a.shape[0]);
  s.k = static_cast<std::uint32_t>(a.shape[1]);
  s.n = static_cast<std::uint32_t>(b.shape[1]);
  try {
    return emit_gemm(s, limits);
  } catch (const Error& e) {
    const std::string what = e.what();
    fail(what.rfind("gemm: ", 0) == 0 ? what.substr(6) : what);
  }
  return {};  // unreachable: fail throws
}

}  // namespace neuronsim::compiler
