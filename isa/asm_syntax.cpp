#include "isa/asm_syntax.hpp"

#include <array>
#include <utility>

namespace neuronsim::isa::asm_detail {

namespace {

// Pointer to member `m` of the operation's struct T, for the table below.
#define NS_FIELD(T, m) [](Operation& o) -> void* { return &std::get<T>(o).m; }

using K = FieldKind;

Field pos(std::string_view key, void* (*get)(Operation&)) {
  return Field{key, K::pattern, true, true, {}, get};
}
Field req(std::string_view key, K kind, void* (*get)(Operation&)) {
  return Field{key, kind, false, true, {}, get};
}
Field opt(std::string_view key, K kind, void* (*get)(Operation&), std::string_view dep = {}) {
  return Field{key, kind, false, false, dep, get};
}

std::array<std::vector<Field>, kOpcodeCount> make_table() {
  std::array<std::vector<Field>, kOpcodeCount> t;
  auto at = [&](Opcode op) -> std::vector<Field>& { return t[static_cast<int>(op)]; };
  at(Opcode::matmul) = {
      pos("dst", NS_FIELD(Matmul, dst)), pos("stationary", NS_FIELD(Matmul, stationary)),
      pos("moving", NS_FIELD(Matmul, moving)), opt("acc", K::acc, NS_FIELD(Matmul, acc))};
  at(Opcode::transpose) = {pos("dst", NS_FIELD(Transpose, dst)),
                           pos("src", NS_FIELD(Transpose, src))};
  at(Opcode::activation) = {pos("dst", NS_FIELD(Activation, dst)),
                            pos("src", NS_FIELD(Activation, src)),
                            req("func", K::act, NS_FIELD(Activation, func)),
                            opt("scale", K::scalar, NS_FIELD(Activation, scale)),
                            opt("bias", K::opt_pattern, NS_FIELD(Activation, bias)),
                            opt("reduce", K::opt_pattern, NS_FIELD(Activation, reduce_dst))};
  at(Opcode::tensor_tensor) = {
      pos("dst", NS_FIELD(TensorTensor, dst)), pos("a", NS_FIELD(TensorTensor, a)),
      pos("b", NS_FIELD(TensorTensor, b)), req("op", K::alu, NS_FIELD(TensorTensor, op))};
  at(Opcode::tensor_scalar) = {
      pos("dst", NS_FIELD(TensorScalar, dst)),
      pos("src", NS_FIELD(TensorScalar, src)),
      req("op0", K::alu, NS_FIELD(TensorScalar, op0)),
      req("arg0", K::scalar, NS_FIELD(TensorScalar, arg0)),
      opt("reverse0", K::boolean, NS_FIELD(TensorScalar, reverse0)),
      opt("op1", K::opt_alu, NS_FIELD(TensorScalar, op1)),
      opt("arg1", K::scalar, NS_FIELD(TensorScalar, arg1), "op1"),
      opt("reverse1", K::boolean, NS_FIELD(TensorScalar, reverse1), "op1"),
      opt("reduce", K::opt_pattern, NS_FIELD(TensorScalar, reduce_dst)),
      opt("reduce_op", K::alu, NS_FIELD(TensorScalar, reduce_op), "reduce")};
  at(Opcode::scalar_tensor_tensor) = {
      pos("dst", NS_FIELD(ScalarTensorTensor, dst)),
      pos("a", NS_FIELD(ScalarTensorTensor, a)),
      pos("b", NS_FIELD(ScalarTensorTensor, b)),
      req("scalar", K::scalar, NS_FIELD(ScalarTensorTensor, scalar)),
      req("op0", K::alu, NS_FIELD(ScalarTensorTensor, op0)),
      req("op1", K::alu, NS_FIELD(ScalarTensorTensor, op1))};
  at(Opcode::tensor_reduce) = {pos("dst", NS_FIELD(TensorReduce, dst)),
                               pos("src", NS_FIELD(TensorReduce, src)),
                               req("op", K::alu, NS_FIELD(TensorReduce, op)),
                               opt("axes", K::u8, NS_FIELD(TensorReduce, axes)),
                               opt("negate", K::boolean, NS_FIELD(TensorReduce, negate))};
  at(Opcode::tensor_copy) = {pos("dst", NS_FIELD(TensorCopy, dst)),
                             pos("src", NS_FIELD(TensorCopy, src))};
  at(Opcode::memset) = {pos("dst", NS_FIELD(Memset, dst)),
                        req("value", K::f64, NS_FIELD(Memset, value))};
  at(Opcode::iota) = {pos("dst", NS_FIELD(Iota, dst)), opt("base", K::i32, NS_FIELD(Iota, base)),
                      opt("partition_step", K::i32, NS_FIELD(Iota, partition_step)),
                      opt("steps", K::steps, NS_FIELD(Iota, steps))};
  at(Opcode::select) = {
      pos("dst", NS_FIELD(Select, dst)), pos("predicate", NS_FIELD(Select, predicate)),
      pos("on_true", NS_FIELD(Select, on_true)), pos("on_false", NS_FIELD(Select, on_false))};
  at(Opcode::affine_select) = {
      pos("dst", NS_FIELD(AffineSelect, dst)),
      pos("src", NS_FIELD(AffineSelect, src)),
      req("cmp", K::alu, NS_FIELD(AffineSelect, cmp)),
      opt("offset", K::i32, NS_FIELD(AffineSelect, offset)),
      opt("partition_step", K::i32, NS_FIELD(AffineSelect, partition_step)),
      opt("steps", K::steps, NS_FIELD(AffineSelect, steps)),
      opt("fill", K::f32, NS_FIELD(AffineSelect, fill))};
  at(Opcode::bn_stats) = {pos("dst", NS_FIELD(BnStats, dst)), pos("src", NS_FIELD(BnStats, src))};
  at(Opcode::bn_aggr) = {pos("dst", NS_FIELD(BnAggr, dst)), pos("src", NS_FIELD(BnAggr, src))};
  at(Opcode::dma_copy) = {pos("dst", NS_FIELD(DmaCopy, dst)), pos("src", NS_FIELD(DmaCopy, src)),
                          req("queue", K::queue, NS_FIELD(DmaCopy, queue)),
                          opt("accumulate", K::boolean, NS_FIELD(DmaCopy, accumulate))};
  at(Opcode::nop) = {};
  return t;
}

#undef NS_FIELD

template <std::size_t... I>
Operation make_default(std::size_t index, std::index_sequence<I...>) {
  Operation result;
  ((index == I ? (result = Operation(std::in_place_index<I>), 0) : 0), ...);
  return result;
}

}  // namespace

const std::vector<Field>& fields(Opcode op) {
  static const auto table = make_table();
  return table[static_cast<int>(op)];
}

Operation default_operation(Opcode op) {
  return make_default(static_cast<std::size_t>(op),
                      std::make_index_sequence<std::variant_size_v<Operation>>{});
}

}  // namespace neuronsim::isa::asm_detail
