#include "isa/cost_operands.hpp"

#include <cstdlib>
#include <type_traits>

namespace neuronsim::isa::cost {

std::uint64_t elems_per_partition(const Instruction& instr) {
  return std::visit(
      [](const auto& x) -> std::uint64_t {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Matmul>) {
          return x.moving.free_elems();
        } else if constexpr (std::is_same_v<T, TensorTensor> ||
                             std::is_same_v<T, ScalarTensorTensor>) {
          return x.a.free_elems();
        } else if constexpr (std::is_same_v<T, Select>) {
          return x.on_true.free_elems();
        } else if constexpr (std::is_same_v<T, Memset> || std::is_same_v<T, Iota>) {
          return x.dst.free_elems();
        } else if constexpr (std::is_same_v<T, Nop>) {
          return 0;
        } else {
          // Transpose, Activation, TensorScalar, TensorReduce, TensorCopy, AffineSelect,
          // BnStats, BnAggr, DmaCopy: N counts the input ("data") elements.
          return x.src.free_elems();
        }
      },
      instr.op);
}

std::vector<const AccessPattern*> streamed_operands(const Instruction& instr) {
  return std::visit(
      [](const auto& x) -> std::vector<const AccessPattern*> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Matmul>) {
          return {&x.stationary, &x.moving, &x.dst};
        } else if constexpr (std::is_same_v<T, TensorTensor> ||
                             std::is_same_v<T, ScalarTensorTensor>) {
          return {&x.a, &x.b, &x.dst};
        } else if constexpr (std::is_same_v<T, Select>) {
          return {&x.predicate, &x.on_true, &x.on_false, &x.dst};
        } else if constexpr (std::is_same_v<T, Memset> || std::is_same_v<T, Iota>) {
          return {&x.dst};
        } else if constexpr (std::is_same_v<T, Nop>) {
          return {};
        } else {
          return {&x.src, &x.dst};
        }
      },
      instr.op);
}

bool is_narrow_float(DType t) {
  return t == DType::bf16 || t == DType::fp16 || t == DType::fp8_e4m3 || t == DType::fp8_e5m2;
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
