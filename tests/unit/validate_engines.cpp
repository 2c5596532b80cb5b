// Which engine may run what, as the NKI ISA reference says (docs/isa-audit.md): the engines
// of each opcode, and the rules that depend on the engine.
#include <catch2/catch.hpp>

#include "tests/unit/validate_fixtures.hpp"

using namespace validate_fixtures;

namespace {

AccessPattern vec(std::uint32_t partitions = 128) {
  return sbuf(kVec, partitions, 1);
}
AccessPattern x() {
  return sbuf(kX, 128, 512);
}
AccessPattern y() {
  return sbuf(kY, 128, 512);
}
AccessPattern ints() {
  return sbuf(kInt, 128, 512, DType::int32);
}

}  // namespace

TEST_CASE("engines: the engines of each opcode follow the NKI pages", "[validate]") {
  struct Case {
    Opcode op;
    std::vector<Engine> engines;
  };
  const std::vector<Case> cases = {
      {Opcode::matmul, {Engine::tensor}},
      {Opcode::transpose, {Engine::tensor, Engine::vector}},
      {Opcode::activation, {Engine::scalar}},
      {Opcode::tensor_tensor, {Engine::vector, Engine::gpsimd}},
      {Opcode::tensor_scalar, {Engine::vector, Engine::scalar}},
      {Opcode::scalar_tensor_tensor, {Engine::vector}},
      {Opcode::tensor_reduce, {Engine::vector}},
      {Opcode::tensor_copy, {Engine::vector, Engine::scalar, Engine::gpsimd}},
      {Opcode::memset, {Engine::vector, Engine::gpsimd}},
      {Opcode::iota, {Engine::gpsimd}},
      {Opcode::select, {Engine::vector}},
      {Opcode::affine_select, {Engine::gpsimd}},
      {Opcode::bn_stats, {Engine::vector}},
      {Opcode::bn_aggr, {Engine::vector}},
      {Opcode::dma_copy,
       {Engine::tensor, Engine::vector, Engine::scalar, Engine::gpsimd, Engine::sync}},
      {Opcode::nop, {Engine::tensor, Engine::vector, Engine::scalar, Engine::gpsimd, Engine::sync}},
      {Opcode::tensor_tensor_scan, {Engine::vector}},
      {Opcode::reciprocal, {Engine::vector}},
      {Opcode::tensor_partition_reduce, {Engine::gpsimd}},
      {Opcode::dropout, {Engine::vector}},
      {Opcode::max8, {Engine::vector}},
      {Opcode::find_index8, {Engine::vector}},
      {Opcode::match_replace8, {Engine::vector}},
      {Opcode::quantize_mx, {Engine::vector}},
      {Opcode::matmul_mx, {Engine::tensor}},
  };
  REQUIRE(cases.size() == static_cast<std::size_t>(kOpcodeCount));
  for (const auto& c : cases) {
    std::uint32_t want = 0;
    for (Engine e : c.engines)
      want |= 1u << static_cast<int>(e);
    INFO(opcode_name(c.op));
    CHECK(allowed_engines(c.op) == want);
  }
}

TEST_CASE("engines: tensor_scalar runs on the Scalar engine", "[validate]") {
  // NKI tensor_scalar: the Scalar Engine runs (multiply, add), (multiply, none), (add, none).
  auto t = tensor_scalar(y(), x(), AluOp::multiply, vec());
  expect_none(with(Engine::scalar, t));
  t.op1 = AluOp::add;
  t.arg1 = 0.5f;
  expect_none(with(Engine::scalar, t));
  t.op0 = AluOp::add;
  t.op1.reset();
  expect_none(with(Engine::scalar, t));
  t.op1 = AluOp::multiply;
  expect_one(with(Engine::scalar, t), "the scalar engine runs only (multiply, add)");
  t = tensor_scalar(y(), x(), AluOp::subtract, 1.0f);
  expect_one(with(Engine::scalar, t), "op0 subtract, op1 none");
  // A reduction is tensor_scalar_reduce, a Vector engine instruction.
  t = tensor_scalar(y(), x(), AluOp::multiply, 2.0f);
  t.reduce_dst = vec();
  expect_one(with(Engine::scalar, t), "a tensor_scalar reduction runs on the vector engine");
  expect_none(with(Engine::vector, t));
}

TEST_CASE("engines: opcodes NKI does not run on an engine are refused there", "[validate]") {
  expect_one(with(Engine::gpsimd, tensor_scalar(y(), x(), AluOp::multiply, 2.0f)),
             "opcode tensor_scalar cannot run on the gpsimd engine");
  expect_one(with(Engine::gpsimd, ScalarTensorTensor{y(), x(), x(), 2.0f}),
             "opcode scalar_tensor_tensor cannot run on the gpsimd engine");
  expect_one(with(Engine::gpsimd, TensorReduce{vec(), x(), AluOp::add, 1}),
             "opcode tensor_reduce cannot run on the gpsimd engine");
  expect_one(with(Engine::scalar, Memset{x(), 1.0}), "opcode memset cannot run on the scalar");
  expect_none(with(Engine::gpsimd, Memset{x(), 1.0}));
  expect_one(with(Engine::vector, Iota{ints()}), "opcode iota cannot run on the vector engine");
  expect_one(with(Engine::gpsimd, Select{y(), x(), x(), x()}),
             "opcode select cannot run on the gpsimd engine");
}

TEST_CASE("engines: bitvec operators run on the Vector engine only", "[validate]") {
  // NKI tensor_scalar: "If bitvec operators are used, the tensor_scalar instruction must run
  // on Vector Engine", and op0/op1 are both bitvec or both arithmetic.
  auto t = tensor_scalar(ints(), ints(), AluOp::bitwise_and, 255.0f);
  expect_none(with(Engine::vector, t));
  expect_one(with(Engine::scalar, t), "bitvec operators run on the vector engine only");
  t.op1 = AluOp::add;
  expect_one(with(Engine::vector, t), "mix a bitvec and an arithmetic operator");
  t.op1 = AluOp::logical_shift_left;
  expect_none(with(Engine::vector, t));
  TensorTensor tt{ints(), ints(), ints(), AluOp::bitwise_xor};
  expect_none(with(Engine::vector, tt));
  expect_one(with(Engine::gpsimd, tt), "only the vector engine runs");
}

TEST_CASE("engines: tensor_tensor power runs on GpSimd", "[validate]") {
  // NKI tensor_tensor: np.power / nl.power "runs on the GpSimd Engine".
  TensorTensor t{y(), x(), x(), AluOp::pow};
  expect_none(with(Engine::gpsimd, t));
  expect_one(with(Engine::vector, t), "op pow runs on the gpsimd engine");
  t.op = AluOp::add;
  expect_none(with(Engine::gpsimd, t));
}

TEST_CASE("engines: a tensor_scalar reduction has one arithmetic operator", "[validate]") {
  // NKI tensor_scalar_reduce: one operator, arithmetic, reverse0 not supported yet.
  auto t = tensor_scalar(y(), x(), AluOp::multiply, vec());
  t.reduce_dst = vec();
  expect_none(with(Engine::vector, t));
  auto bad = t;
  bad.op1 = AluOp::add;
  expect_one(with(Engine::vector, bad), "with a reduction has one operator");
  bad = t;
  bad.reverse0 = true;
  expect_one(with(Engine::vector, bad), "reverse0 is not supported with a reduction");
}

TEST_CASE("engines: not both of two inputs in PSUM", "[validate]") {
  // NKI scalar_tensor_tensor: data and operand1 cannot both reside in PSUM.
  ScalarTensorTensor stt{y(), psum(kPs, 128, 512), psum(kPs2, 128, 512), 2.0f};
  expect_one(with(Engine::vector, stt), "a and b are both in psum");
  stt.b = x();
  expect_none(with(Engine::vector, stt));
  // NKI select_reduce / tensor_copy_predicated: predicate and data not both in PSUM.
  Select s{y(), psum(kPs, 128, 512), psum(kPs2, 128, 512), x()};
  expect_one(with(Engine::vector, s), "predicate and on_true are both in psum");
  s.on_true = x();
  expect_none(with(Engine::vector, s));
}

TEST_CASE("engines: a transpose keeps its dtype", "[validate]") {
  // NKI nc_transpose: dst has data's dtype; through the array v2 writes fp32.
  Transpose v{sbuf(kW, 32, 32, DType::bf16), sbuf(kX, 32, 32)};
  expect_one(with(Engine::vector, v), "dst is bf16 but src is fp32");
  Transpose t{psum(kPs, 64, 128), sbuf(kW, 128, 64, DType::bf16)};
  expect_none(with(Engine::tensor, t));  // bf16 through the array into fp32 PSUM
  auto same = t;
  same.dst.dtype = DType::bf16;
  expect_none(with(Engine::tensor, same));  // v3 transpose mode keeps bf16
  auto other = t;
  other.dst.dtype = DType::fp16;
  expect_one(with(Engine::tensor, other), "dst is fp16 but src is bf16");
}

TEST_CASE("engines: activation scale and bias dtypes", "[validate]") {
  // NKI activation: scale is fp32, bias fp32, fp16 or bf16.
  Activation a{y(), x(), ActFunc::exp, vec(), vec(), std::nullopt};
  expect_none(with(Engine::scalar, a));
  auto bad = a;
  bad.scale = sbuf(kW, 128, 1, DType::bf16);
  expect_one(with(Engine::scalar, bad), "scale is bf16; an activation's scale vector is fp32");
  auto ok = a;
  ok.bias = sbuf(kW, 128, 1, DType::bf16);
  expect_none(with(Engine::scalar, ok));
  bad = a;
  bad.bias = sbuf(kInt, 128, 1, DType::int32);
  expect_one(with(Engine::scalar, bad),
             "bias is int32; an activation's bias is fp32, fp16 or bf16");
}
