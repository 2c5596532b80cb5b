// _core.rmsnorm_kernel: the hand-fused RMSNorm of examples/ (examples/kernels.hpp) made and
// validated for a target as `neuronsim example rmsnorm` makes it (cli/cmd_example.cpp),
// with the caller's eps, so that neuronsim.torch.rms_norm runs the kernel of
// scripts/rmsnorm_study.sh.
#include <string>

#include "config/target_config.hpp"
#include "examples/kernels.hpp"
#include "python/core/bindings.hpp"
#include "python/core/kernel_object.hpp"
#include "python/core/sanitizer_stack.hpp"
#include "validate/validate.hpp"

namespace py = pybind11;

namespace neuronsim::python {

void bind_example_kernels(py::module_& m) {
  m.def(
      "rmsnorm_kernel",
      [](std::uint32_t rows, std::uint32_t cols, std::uint32_t buffers, const std::string& dtype,
         float eps, const std::string& target) {
        const config::TargetConfig config = config::load_target(target);
        examples::ExampleParams p;
        p.rows = rows;
        p.cols = cols;
        p.buffers = buffers;
        p.dtype = dtype;
        p.target = config.name;
        p.limits = config.limits;
        isa::Kernel k = examples::rmsnorm_fused(p, eps);
        isa::validate(k, config.limits, "example rmsnorm");
        return KernelObject(std::move(k), "example rmsnorm");
      },
      py::call_guard<DeadStackUnpoisoned>(), py::arg("rows"), py::arg("cols"), py::arg("buffers"),
      py::arg("dtype"), py::arg("eps"), py::arg("target"));
}

}  // namespace neuronsim::python
