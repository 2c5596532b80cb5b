// A complete valid kernel, and how problems are located and reported.
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "tests/unit/validate_fixtures.hpp"

using namespace validate_fixtures;

namespace {

// One instruction of every opcode, on engines that run it, synchronised by semaphores.
Kernel every_opcode_kernel() {
  Kernel k = base_kernel();
  auto load = instr(DmaCopy{sbuf(kX, 128, 512), hbm(kIn, 128, 512), 0, false, false, std::nullopt,
                            std::nullopt, false},
                    1);
  load.signals.push_back({0, SemUpdate::increment, 16});
  k.stream(Engine::sync).push_back(load);

  auto mm = instr(Matmul{psum(kPs, 128, 512), sbuf(kW, 128, 128, DType::bf16),
                         sbuf(kW, 128, 512, DType::bf16), AccumulateFlag::single},
                  2);
  mm.waits.push_back({0, 16});
  k.stream(Engine::tensor).push_back(mm);
  k.stream(Engine::tensor).push_back(instr(Transpose{psum(kPs2, 64, 128), sbuf(kX, 128, 64)}, 3));

  k.stream(Engine::scalar)
      .push_back(instr(Activation{sbuf(kY, 128, 512), sbuf(kX, 128, 512), ActFunc::rsqrt, 0.5f,
                                  sbuf(kVec, 128, 1), std::nullopt},
                       4));
  k.stream(Engine::scalar).push_back(instr(TensorCopy{sbuf(kY, 128, 512), psum(kPs, 128, 512)}));

  auto& v = k.stream(Engine::vector);
  v.push_back(instr(
      TensorTensor{sbuf(kY, 128, 512), sbuf(kX, 128, 512), psum(kPs, 128, 512), AluOp::multiply}));
  v.push_back(instr(tensor_scalar(sbuf(kY, 128, 512), sbuf(kX, 128, 512), AluOp::add, 1.0f)));
  v.push_back(instr(ScalarTensorTensor{sbuf(kY, 128, 512), sbuf(kX, 128, 512), sbuf(kX, 128, 512),
                                       sbuf(kVec, 128, 1)}));
  v.push_back(instr(TensorReduce{sbuf(kVec, 128, 1), sbuf(kX, 128, 512), AluOp::add, 1}));
  v.push_back(instr(Memset{sbuf(kInt, 128, 512, DType::int32), 4.0}));
  v.push_back(
      instr(Select{sbuf(kY, 128, 8), sbuf(kX, 128, 8), sbuf(kX, 128, 8), sbuf(kY, 128, 8)}));
  v.push_back(instr(BnStats{sbuf(kY, 128, 6), sbuf(kX, 128, 512)}));
  v.push_back(instr(BnAggr{sbuf(kY, 128, 2), sbuf(kX, 128, 6)}));
  v.push_back(instr(Transpose{sbuf(kY, 32, 32), sbuf(kX, 32, 32)}));
  auto last = instr(Nop{});
  last.signals.push_back({1, SemUpdate::set, 1});
  v.push_back(last);

  auto& g = k.stream(Engine::gpsimd);
  Iota iota{sbuf(kInt, 128, 512, DType::int32), 0, 512};
  iota.steps[0] = 1;
  g.push_back(instr(iota));
  g.push_back(instr(AffineSelect{sbuf(kY, 128, 128), sbuf(kX, 128, 128)}));

  auto store = instr(DmaCopy{hbm(kOut, 128, 512), sbuf(kY, 128, 512), 0, false, false, std::nullopt,
                             std::nullopt, false});
  store.waits.push_back({1, 1});
  k.stream(Engine::sync).push_back(store);
  return k;
}

}  // namespace

TEST_CASE("validate: a kernel using every opcode is valid", "[validate]") {
  const Kernel k = every_opcode_kernel();
  REQUIRE(k.instruction_count() == 18);
  expect_none(k);
  CHECK_NOTHROW(validate(k, trn1_limits(), "every.nasm"));
}

TEST_CASE("validate: where names engine, index, line and opcode", "[validate]") {
  Kernel k = every_opcode_kernel();
  k.stream(Engine::scalar).edit(0, [](Instruction& i) {
    std::get<Activation>(i.op).bias = sbuf(kVec, 64, 1);
  });
  k.stream(Engine::scalar).edit(1, [](Instruction& i) {
    std::get<TensorCopy>(i.op).src.dims[0].size = 256;
  });
  const auto d = check(k, trn1_limits());
  INFO(listing(d));
  REQUIRE(d.size() == 2);
  CHECK(d[0].where == "scalar[0] (line 4) activation");
  CHECK(d[1].where == "scalar[1] tensor_copy");  // line 0: unknown, left out
}

TEST_CASE("validate: validate() lists the problems under the source name", "[validate]") {
  Kernel k = every_opcode_kernel();
  k.tensors[kConst].data.clear();
  try {
    validate(k, trn1_limits(), "kern.nasm");
    FAIL("no error");
  } catch (const neuronsim::Error& e) {
    CHECK(std::string(e.what()) ==
          "kern.nasm: 1 problem:\n  tensor w: constant data is 0 bytes, its shape and dtype "
          "need 8");
  }
}

TEST_CASE("validate: validate() caps the list at 20", "[validate]") {
  Kernel k = base_kernel();
  for (int i = 0; i < 25; ++i)
    k.stream(Engine::vector).push_back(instr(Memset{sbuf(kX, 128, 513), 0.0}));
  try {
    validate(k, trn1_limits(), "big.nasm");
    FAIL("no error");
  } catch (const neuronsim::Error& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Catch::StartsWith("big.nasm: 25 problems:\n  vector[0] memset: dst: bytes"));
    CHECK_THAT(msg, Catch::Contains("vector[19] memset") && !Catch::Contains("vector[20]"));
    CHECK_THAT(msg, Catch::EndsWith("\n  ... and 5 more"));
  }
}

TEST_CASE("validate: a 100000-instruction kernel validates", "[validate]") {
  // Speed is measured by bench/validate.cpp; this only checks that a large valid kernel
  // stays valid and that check() is deterministic.
  Kernel k = base_kernel();
  for (int i = 0; i < 100000; ++i) {
    auto in =
        instr(TensorTensor{sbuf(kY, 128, 512), sbuf(kX, 128, 512), psum(kPs, 128, 512), AluOp::add},
              i + 1);
    in.waits.push_back({0, 1});
    k.stream(Engine::vector).push_back(in);
  }
  expect_none(k);
  k.stream(Engine::vector).edit(99999, [](Instruction& i) {
    std::get<TensorTensor>(i.op).op = AluOp::bitwise_or;
  });
  const auto a = check(k, trn1_limits());
  const auto b = check(k, trn1_limits());
  REQUIRE(a.size() == 3);
  CHECK(a[0].where == "vector[99999] (line 100000) tensor_tensor");
  REQUIRE(b.size() == a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    CHECK(a[i].reason == b[i].reason);
}
