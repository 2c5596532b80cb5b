#include "examples/kernels.hpp"
#include "isa/error.hpp"

namespace neuronsim::examples {

const std::vector<Example>& all_examples() {
  static const std::vector<Example> examples = {
      {"matmul", "tiled bf16 matmul C = A @ B, PSUM accumulation over K (default 512^3)",
       matmul_tiled},
      {"softmax", "row softmax of a bf16 [N, D] tensor (default [1024, 1024])", softmax_rows},
      {"rmsnorm", "fused RMSNorm x * rsqrt(mean(x^2) + eps) * w (default [1024, 2048])",
       [](const ExampleParams& p) { return rmsnorm_fused(p); }},
  };
  return examples;
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
