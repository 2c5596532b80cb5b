#include "profile/peak_flops.hpp"

#include <array>
#include <cstdint>
#include <variant>

#include "traces/summary.hpp"

namespace neuronsim::profile {

namespace {

enum Class { kBf16, kFp8, kFp32, kClassCount };

bool is_fp8(isa::DType t) {
  return t == isa::DType::fp8_e4m3 || t == isa::DType::fp8_e5m2 || t == isa::DType::fp8_e4m3fn;
}

// As cost/cost_model.cpp prices matmuls: fp32 if either input is, fp8 only if both are.
Class matmul_class(const isa::Matmul& mm) {
  if (mm.stationary.dtype == isa::DType::fp32 || mm.moving.dtype == isa::DType::fp32) return kFp32;
  if (is_fp8(mm.stationary.dtype) && is_fp8(mm.moving.dtype)) return kFp8;
  return kBf16;
}

}  // namespace

double peak_flops_per_s(const config::TargetConfig& target, const isa::Kernel& k) {
  const std::array<double, kClassCount> peak = {target.tensor_tflops_bf16 * 1e12,
                                                target.tensor_tflops_fp8 * 1e12,
                                                target.tensor_tflops_fp32 * 1e12};
  // Every instruction of a stream runs once, so the kernel's matmul flops are static.
  std::array<double, kClassCount> flops{};
  for (const auto& instr : k.stream(isa::Engine::tensor))
    if (const auto* mm = std::get_if<isa::Matmul>(&instr.op))
      flops[matmul_class(*mm)] += static_cast<double>(traces::model_flops(instr));
    else if (std::holds_alternative<isa::MatmulMx>(instr.op))  // tflops_fp8: the MXFP8 peak
      flops[kFp8] += static_cast<double>(traces::model_flops(instr));
  int classes = 0, only = kBf16;
  double total = 0, seconds_at_peak = 0;
  for (int c = 0; c < kClassCount; ++c) {
    if (flops[c] == 0) continue;
    ++classes;
    only = c;
    total += flops[c];
    seconds_at_peak += flops[c] / peak[c];
  }
  // One class: its peak exactly (no rounding through the sum).
  if (classes <= 1) return peak[only];
  return total / seconds_at_peak;
}

}  // namespace neuronsim::profile
