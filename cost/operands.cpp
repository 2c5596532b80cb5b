#include "cost/operands.hpp"

#include <cstdlib>

#include "isa/for_each_field.hpp"

namespace neuronsim::isa::cost {

std::uint64_t elems_per_partition(const Instruction& instr) {
  // The field marked sets_n() (every instruction with operands has exactly one,
  // for_each_field.hpp checks it); an instruction without operands (nop) has N = 0.
  return std::visit(
      [](const auto& op) {
        std::uint64_t n = 0;
        for_each_pattern(op, [&](const auto& f, const AccessPattern& ap) {
          if (f.is_n) n = ap.free_elems();
        });
        return n;
      },
      instr.op);
}

std::vector<const AccessPattern*> streamed_operands(const Instruction& instr) {
  std::vector<const AccessPattern*> out;
  std::visit(
      [&](const auto& op) {
        for_each_pattern(op, [&](const auto& f, const AccessPattern& ap) {
          if (f.use == FieldUse::read || f.use == FieldUse::write) out.push_back(&ap);
        });
      },
      instr.op);
  return out;
}

bool is_narrow_float(DType t, bool fp8_is_narrow) {
  if (t == DType::fp8_e4m3 || t == DType::fp8_e5m2 || t == DType::fp8_e4m3fn ||
      t == DType::fp8_e8m0)
    return fp8_is_narrow;
  return t == DType::bf16 || t == DType::fp16;
}

std::int64_t effective_inner_stride(const AccessPattern& ap) {
  for (int i = ap.ndims - 1; i >= 0; --i)
    if (ap.dims[i].size > 1) return ap.dims[i].stride;
  return 1;
}

bool is_contiguous(const AccessPattern& ap) {
  return effective_inner_stride(ap) == 1;
}

std::uint64_t inner_stride_bytes(const AccessPattern& ap) {
  return static_cast<std::uint64_t>(std::llabs(effective_inner_stride(ap))) * dtype_size(ap.dtype);
}

}  // namespace neuronsim::isa::cost
