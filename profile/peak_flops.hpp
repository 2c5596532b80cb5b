#pragma once
// The peak flops/s that MFU divides by: the Tensor engine's peak for the dtype of each of a
// kernel's matmuls (reference section 1: per-core TFLOPS differ for bf16, fp8 and fp32 by
// the rates the cost model charges), so that an fp8 kernel is not measured against the
// bf16 peak.
#include "config/target_config.hpp"
#include "isa/kernel.hpp"

namespace neuronsim::profile {

// Peak flops/s of `k` on `target`: the TFLOPS of its matmuls' dtype class (fp32 when an
// input is fp32, fp8 when both are, else bf16/fp16/tf32: the classes of the cost model's
// matmul rates), and for a mix of classes the peak at which the kernel's matmul flops take
// the sum of their times at each class's peak. A kernel without matmuls gets the bf16 peak.
double peak_flops_per_s(const config::TargetConfig& target, const isa::Kernel& k);

}  // namespace neuronsim::profile
