#include "base/error.hpp"
#include "examples/kernels.hpp"

#include <string>

namespace neuronsim::examples {

const std::vector<Example>& all_examples() {
  static const std::vector<Example> examples = {
      {"matmul", "GEMM C = A @ B, any M, N, K, --dtype (the compiler's; default 512^3 bf16)",
       matmul_tiled},
      {"softmax", "row softmax of a bf16 [N, D] tensor (default [1024, 1024])", softmax_rows},
      {"rmsnorm", "fused RMSNorm x * rsqrt(mean(x^2) + eps) * w (default [1024, 2048])",
       [](const ExampleParams& p) { return rmsnorm_fused(p); }},
  };
  return examples;
}

std::uint32_t stage_buffers(const ExampleParams& p) {
  if (p.block_rows || p.block_cols || p.b_slots)
    throw Error(
        "--block-rows, --block-cols and --b-slots are the matmul's GEMM schedule; the "
        "row examples take --buffers");
  if (p.buffers == 0) return p.double_buffered ? 2 : 1;
  if (p.buffers > 8)
    throw Error("--buffers " + std::to_string(p.buffers) + ": 1 to 8 buffers per stage");
  return p.buffers;
}

const Example& find_example(const std::string& name) {
  std::string known;
  for (const auto& e : all_examples()) {
    if (e.name == name) return e;
    known += (known.empty() ? "" : ", ") + e.name;
  }
  throw Error("no example named '" + name + "' (known: " + known + ")");
}

}  // namespace neuronsim::examples
