#include "cost/rate.hpp"

#include <string>

#include "base/error.hpp"
#include "cost/operands.hpp"

namespace neuronsim::isa::cost {

std::uint64_t require_nonzero(std::uint64_t value, const char* field) {
  if (value == 0)
    throw Error(std::string("cost model: params::CostParams.") + field +
                " is 0; the target config must set it");
  return value;
}

VectorMode vector_mode(const Instruction& instr, const params::CostParams& p) {
  // The v3 performance modes (AWS trainium2 architecture guide, summarised in reference
  // section 4): tensor_copy / tensor_scalar with all-16-bit float operands (BF16/FP16; fp8
  // too where fp8_at_16bit_width, v4's "512 BF16/FP16/FP8"), all in SBUF and
  // contiguous, run 4x; the same with one of "in SBUF" / "contiguous" missing run 2x. Any
  // other instruction whose streamed operands are all in SBUF and contiguous runs at the
  // "other dtypes" width (reference section 1: 256 on v3), which for 16-bit tensor_tensor
  // is the guide's 2x case. PSUM or strided operands otherwise keep the v2 rate.
  const auto ops = streamed_operands(instr);
  bool all_narrow = true, all_sbuf = true, all_contiguous = true;
  for (const AccessPattern* ap : ops) {
    all_narrow = all_narrow && is_narrow_float(ap->dtype, p.fp8_at_16bit_width != 0);
    all_sbuf = all_sbuf && ap->space == MemSpace::sbuf;
    all_contiguous = all_contiguous && is_contiguous(*ap);
  }
  const Opcode op = instr.opcode();
  // quantize_mx streams its 16-bit source at the full width: the NKI Trainium3 architecture
  // guide gives QuantizeMX 4 elements per partition per cycle, v4's 16-bit width (512 =
  // 4 x 128). Validation keeps all its operands in SBUF; a strided one halves it as above.
  if (op == Opcode::quantize_mx) return all_contiguous ? VectorMode::full : VectorMode::half;
  const bool copy_like = op == Opcode::tensor_copy || op == Opcode::tensor_scalar;
  if (copy_like && all_narrow) {
    if (all_sbuf && all_contiguous) return VectorMode::full;
    if (all_sbuf || all_contiguous) return VectorMode::half;
    return VectorMode::base;
  }
  return all_sbuf && all_contiguous ? VectorMode::half : VectorMode::base;
}

std::uint64_t stride_penalty(const std::vector<const AccessPattern*>& operands,
                             const params::CostParams& p) {
  // Reference section 2: an innermost stride above 16 bytes halves the bandwidth.
  if (p.stride_penalty_factor <= 1) return 1;
  for (const AccessPattern* ap : operands)
    if (ap->space != MemSpace::hbm && inner_stride_bytes(*ap) > p.stride_penalty_bytes)
      return p.stride_penalty_factor;
  return 1;
}

StreamRate stream_rate(const Instruction& instr, Engine engine, const params::CostParams& p) {
  StreamRate r;
  r.baseline = require_nonzero(p.baseline_elems_per_cycle, "baseline_elems_per_cycle");
  r.width = r.baseline;
  r.penalty = stride_penalty(streamed_operands(instr), p);
  switch (engine) {
    case Engine::vector:
      switch (vector_mode(instr, p)) {
        case VectorMode::full:
          r.width = require_nonzero(p.vector_elems_per_cycle_16bit, "vector_elems_per_cycle_16bit");
          break;
        case VectorMode::half:
          r.width = require_nonzero(p.vector_elems_per_cycle_other, "vector_elems_per_cycle_other");
          break;
        case VectorMode::base:
          break;
      }
      break;
    case Engine::scalar: {
      // No Scalar performance modes are published: the dtype alone picks the width
      // (reference section 1: v4 Scalar is 256 for 16-bit/fp8, 128 for other types).
      bool all_narrow = true;
      for (const AccessPattern* ap : streamed_operands(instr))
        all_narrow = all_narrow && is_narrow_float(ap->dtype, p.fp8_at_16bit_width != 0);
      r.width =
          all_narrow
              ? require_nonzero(p.scalar_elems_per_cycle_16bit, "scalar_elems_per_cycle_16bit")
              : require_nonzero(p.scalar_elems_per_cycle_other, "scalar_elems_per_cycle_other");
      break;
    }
    case Engine::gpsimd:
      r.width = require_nonzero(p.gpsimd_elems_per_cycle, "gpsimd_elems_per_cycle");
      break;
    case Engine::tensor:
    case Engine::sync:
      break;
  }
  return r;
}

std::uint64_t stream_cycles(const StreamRate& r, std::uint64_t elems, std::uint64_t num,
                            std::uint64_t den) {
  const std::uint64_t numerator = elems * num * r.baseline * r.penalty;
  const std::uint64_t denominator = den * r.width;
  return (numerator + denominator - 1) / denominator;
}

}  // namespace neuronsim::isa::cost
