// One test case per row of the NeuronCore-v2 cost table (reference section 4), with the
// parameters of v2_params(): every expected count is derived in a comment.
#include <catch2/catch.hpp>

#include "cost_model_fixtures.hpp"

using namespace cost_test;

TEST_CASE("cost: activation, tensor_scalar, tensor_copy cost max(MIN_II, N)", "[cost]") {
  const params::CostParams p = v2_params();
  Activation act;
  act.src = tile(DType::fp32, 512);
  act.dst = tile(DType::bf16, 512);
  act.func = ActFunc::exp;
  // N = 512: max(64, 512) = 512
  CHECK(busy_cycles(act, Engine::scalar, p) == 512);
  act.src = tile(DType::fp32, 32);
  act.dst = tile(DType::fp32, 32);
  // N = 32: max(64, 32) = 64
  CHECK(busy_cycles(act, Engine::scalar, p) == 64);

  // N = 512 fp32, tensor_scalar multiply: max(64, 512) = 512 (two ops cost the same)
  TensorScalar ts = ts_op(DType::fp32, 512, AluOp::multiply, 2.0f);
  CHECK(busy_cycles(ts, Engine::vector, p) == 512);
  ts.op1 = AluOp::add;
  CHECK(busy_cycles(ts, Engine::vector, p) == 512);
  // the same (multiply, add) on the Scalar engine (NKI tensor_scalar): max(64, 512) = 512
  CHECK(busy_cycles(ts, Engine::scalar, p) == 512);

  // N = 512 fp32 tensor_copy on each engine that runs it: max(64, 512) = 512
  CHECK(busy_cycles(copy_op(DType::fp32, 512), Engine::vector, p) == 512);
  CHECK(busy_cycles(copy_op(DType::fp32, 512), Engine::scalar, p) == 512);
  CHECK(busy_cycles(copy_op(DType::fp32, 512), Engine::gpsimd, p) == 512);
  // N = 2000 bf16: max(64, 2000) = 2000
  CHECK(busy_cycles(copy_op(DType::bf16, 2000), Engine::vector, p) == 2000);
}

TEST_CASE("cost: activation with reduce adds accumulator_read, tensor_scalar reduce_extra",
          "[cost]") {
  const params::CostParams p = v2_params();
  Activation act;
  act.src = tile(DType::fp32, 512);
  act.dst = tile(DType::fp32, 512);
  act.func = ActFunc::square;
  act.reduce_dst = column();
  // N = 512: max(64, 512) + 64 = 576
  CHECK(busy_cycles(act, Engine::scalar, p) == 576);
  act.src = tile(DType::fp32, 10);
  act.dst = tile(DType::fp32, 10);
  // N = 10: max(64, 10) + 64 = 128
  CHECK(busy_cycles(act, Engine::scalar, p) == 128);

  TensorScalar ts = ts_op(DType::fp32, 512, AluOp::multiply, 0.5f);
  ts.reduce_dst = column();
  // N = 512: max(64, 512) + 64 = 576
  CHECK(busy_cycles(ts, Engine::vector, p) == 576);

  // Each reads its own parameter: the Scalar accumulator's read-out, the Vector reduce.
  params::CostParams q = p;
  q.accumulator_read = 10;
  // N = 10: max(64, 10) + 10 = 74; tensor_scalar keeps reduce_extra: 576
  CHECK(busy_cycles(act, Engine::scalar, q) == 74);
  CHECK(busy_cycles(ts, Engine::vector, q) == 576);
  q = p;
  q.reduce_extra = 10;
  // max(64, 10) + 64 = 128; max(64, 512) + 10 = 522
  CHECK(busy_cycles(act, Engine::scalar, q) == 128);
  CHECK(busy_cycles(ts, Engine::vector, q) == 522);
}

TEST_CASE("cost: tensor_tensor with one input in PSUM costs max(MIN_II, N)", "[cost]") {
  const params::CostParams p = v2_params();
  // N = 512 fp32, a in PSUM, b in SBUF, divide: max(64, 512) = 512
  auto tt = tt_op(tile(DType::fp32, 512, MemSpace::psum), tile(DType::fp32, 512),
                  tile(DType::fp32, 512), AluOp::divide);
  CHECK(busy_cycles(tt, Engine::vector, p) == 512);
  std::swap(tt.a, tt.b);
  CHECK(busy_cycles(tt, Engine::vector, p) == 512);
  // N = 20: max(64, 20) = 64
  tt = tt_op(tile(DType::fp32, 20), tile(DType::fp32, 20, MemSpace::psum), tile(DType::fp32, 20),
             AluOp::max);
  CHECK(busy_cycles(tt, Engine::vector, p) == 64);
}

TEST_CASE("cost: tensor_tensor all-bf16 SBUF add/multiply/subtract costs max(MIN_II, N)",
          "[cost]") {
  const params::CostParams p = v2_params();
  for (AluOp op : {AluOp::add, AluOp::multiply, AluOp::subtract}) {
    // N = 512 bf16 elements, all-bf16 SBUF: max(64, 512) = 512
    auto tt = tt_op(tile(DType::bf16, 512), tile(DType::bf16, 512), tile(DType::bf16, 512), op);
    CHECK(busy_cycles(tt, Engine::vector, p) == 512);
  }
}

TEST_CASE("cost: tensor_tensor otherwise costs max(MIN_II, 2N)", "[cost]") {
  const params::CostParams p = v2_params();
  const auto bf = tile(DType::bf16, 512);
  // N = 512 fp32 SBUF add: max(64, 2*512) = 1024
  CHECK(busy_cycles(tt_op(tile(DType::fp32, 512), tile(DType::fp32, 512), tile(DType::fp32, 512),
                          AluOp::add),
                    Engine::vector, p) == 1024);
  // bf16 but divide: max(64, 1024) = 1024
  CHECK(busy_cycles(tt_op(bf, bf, bf, AluOp::divide), Engine::vector, p) == 1024);
  // bf16 inputs, fp32 output: not all-bf16, 1024
  CHECK(busy_cycles(tt_op(bf, bf, tile(DType::fp32, 512), AluOp::add), Engine::vector, p) == 1024);
  // fp16 is not bf16: 1024
  const auto h = tile(DType::fp16, 512);
  CHECK(busy_cycles(tt_op(h, h, h, AluOp::add), Engine::vector, p) == 1024);
  // bf16 input with stride 2 (4 bytes, no stride penalty) is not contiguous: 1024
  CHECK(busy_cycles(tt_op(tile(DType::bf16, 512, MemSpace::sbuf, 2), bf, bf, AluOp::add),
                    Engine::vector, p) == 1024);
  // N = 20: max(64, 40) = 64; N = 40: max(64, 80) = 80
  const auto f20 = tile(DType::fp32, 20), f40 = tile(DType::fp32, 40);
  CHECK(busy_cycles(tt_op(f20, f20, f20, AluOp::add), Engine::vector, p) == 64);
  CHECK(busy_cycles(tt_op(f40, f40, f40, AluOp::add), Engine::vector, p) == 80);
  // on GpSimd the same formula: max(64, 1024) = 1024
  CHECK(busy_cycles(tt_op(tile(DType::int32, 512), tile(DType::int32, 512), tile(DType::int32, 512),
                          AluOp::add),
                    Engine::gpsimd, p) == 1024);
}

TEST_CASE("cost: scalar_tensor_tensor is N for even bf16 subtract-multiply else 2N", "[cost]") {
  const params::CostParams p = v2_params();
  ScalarTensorTensor stt;
  stt.a = tile(DType::bf16, 512);
  stt.b = tile(DType::bf16, 512);
  stt.dst = tile(DType::bf16, 512);
  stt.scalar = 1.0f;
  stt.op0 = AluOp::subtract;
  stt.op1 = AluOp::multiply;
  // N = 512 bf16, subtract then multiply, N even: 512
  CHECK(busy_cycles(stt, Engine::vector, p) == 512);
  // N = 511 odd: 2 * 511 = 1022
  stt.a = tile(DType::bf16, 511);
  stt.b = tile(DType::bf16, 511);
  stt.dst = tile(DType::bf16, 511);
  CHECK(busy_cycles(stt, Engine::vector, p) == 1022);
  // N = 16 even: 16 (this row has no MIN_II floor)
  stt.a = tile(DType::bf16, 16);
  stt.b = tile(DType::bf16, 16);
  stt.dst = tile(DType::bf16, 16);
  CHECK(busy_cycles(stt, Engine::vector, p) == 16);
  // add then multiply: 2 * 16 = 32
  stt.op0 = AluOp::add;
  CHECK(busy_cycles(stt, Engine::vector, p) == 32);
  // fp32 inputs, subtract then multiply, N = 512: 2 * 512 = 1024
  stt.op0 = AluOp::subtract;
  stt.a = tile(DType::fp32, 512);
  stt.b = tile(DType::fp32, 512);
  stt.dst = tile(DType::fp32, 512);
  CHECK(busy_cycles(stt, Engine::vector, p) == 1024);
}

TEST_CASE("cost: tensor_reduce is N/2 for bf16 add/max else N", "[cost]") {
  const params::CostParams p = v2_params();
  TensorReduce tr;
  tr.src = tile(DType::bf16, 512);
  tr.dst = column(DType::bf16);
  tr.op = AluOp::add;
  // N = 512 bf16 add: 512 / 2 = 256
  CHECK(busy_cycles(tr, Engine::vector, p) == 256);
  tr.op = AluOp::max;
  CHECK(busy_cycles(tr, Engine::vector, p) == 256);
  // N = 511: ceil(511 / 2) = 256
  tr.src = tile(DType::bf16, 511);
  CHECK(busy_cycles(tr, Engine::vector, p) == 256);
  // bf16 min: N = 511
  tr.op = AluOp::min;
  CHECK(busy_cycles(tr, Engine::vector, p) == 511);
  // fp32 add, N = 512: 512
  tr.op = AluOp::add;
  tr.src = tile(DType::fp32, 512);
  tr.dst = column(DType::fp32);
  CHECK(busy_cycles(tr, Engine::vector, p) == 512);
  // bf16 in, fp32 out: not both bf16, N = 512
  tr.src = tile(DType::bf16, 512);
  CHECK(busy_cycles(tr, Engine::vector, p) == 512);
  // N = 8 bf16 add: 4 (no MIN_II floor in this row)
  tr.src = tile(DType::bf16, 8);
  tr.dst = column(DType::bf16);
  CHECK(busy_cycles(tr, Engine::vector, p) == 4);
}

TEST_CASE("cost: bn_aggr costs max(MIN_II, ceil(13N/3))", "[cost]") {
  const params::CostParams p = v2_params();
  BnAggr agg;
  agg.dst = tile(DType::fp32, 2);
  auto with_n = [&](std::uint32_t n) {
    agg.src = tile(DType::fp32, n);
    return busy_cycles(agg, Engine::vector, p);
  };
  CHECK(with_n(6) == 64);    // max(64, 13*6/3 = 26) = 64
  CHECK(with_n(48) == 208);  // 13*48/3 = 208
  CHECK(with_n(30) == 130);  // 13*30/3 = 130
  CHECK(with_n(31) == 135);  // 13*31/3 = 134.33, rounded up: 135
}

TEST_CASE("cost: reciprocal on Vector costs max(MIN_II, 8N)", "[cost]") {
  const params::CostParams p = v2_params();
  // 1/x as tensor_scalar divide with reversed operands, N = 512: 8 * 512 = 4096
  CHECK(busy_cycles(ts_op(DType::fp32, 512, AluOp::divide, 1.0f, true), Engine::vector, p) == 4096);
  // x ** -1 as tensor_scalar pow, N = 512: 4096
  CHECK(busy_cycles(ts_op(DType::fp32, 512, AluOp::pow, -1.0f), Engine::vector, p) == 4096);
  // reciprocal as the second op: (x * 2) then 1 / that: 4096
  TensorScalar second = ts_op(DType::fp32, 512, AluOp::multiply, 2.0f);
  second.op1 = AluOp::divide;
  second.arg1 = 1.0f;
  second.reverse1 = true;
  CHECK(busy_cycles(second, Engine::vector, p) == 4096);
  // N = 8: max(64, 64) = 64; N = 9: max(64, 72) = 72; N = 4: max(64, 32) = 64
  CHECK(busy_cycles(ts_op(DType::fp32, 8, AluOp::divide, 1.0f, true), Engine::vector, p) == 64);
  CHECK(busy_cycles(ts_op(DType::fp32, 9, AluOp::divide, 1.0f, true), Engine::vector, p) == 72);
  CHECK(busy_cycles(ts_op(DType::fp32, 4, AluOp::pow, -1.0f), Engine::vector, p) == 64);
  // with a reduction: max(64, 4096) + 64 = 4160
  TensorScalar reduced = ts_op(DType::fp32, 512, AluOp::divide, 1.0f, true);
  reduced.reduce_dst = column();
  CHECK(busy_cycles(reduced, Engine::vector, p) == 4160);
  // not a reciprocal: x / 4 and x ** 2 are ordinary tensor_scalars, max(64, 512) = 512
  CHECK(busy_cycles(ts_op(DType::fp32, 512, AluOp::divide, 4.0f), Engine::vector, p) == 512);
  CHECK(busy_cycles(ts_op(DType::fp32, 512, AluOp::pow, 2.0f), Engine::vector, p) == 512);
  // tensor_scalar does not run on GpSimd at all (NKI: only for rsqrt, which AluOp lacks)
  CHECK_THROWS_WITH(
      busy_cycles(ts_op(DType::fp32, 512, AluOp::divide, 1.0f, true), Engine::gpsimd, p),
      Catch::Contains("tensor_scalar cannot run on the gpsimd engine"));
  // the Scalar engine's reciprocal activation is an activation: 512
  Activation act;
  act.src = tile(DType::fp32, 512);
  act.dst = tile(DType::fp32, 512);
  act.func = ActFunc::reciprocal;
  CHECK(busy_cycles(act, Engine::scalar, p) == 512);
}

TEST_CASE("cost: memset is max(MIN_II, N/2) for zero in 16-bit types else max(MIN_II, N)",
          "[cost]") {
  const params::CostParams p = v2_params();
  auto memset_of = [](DType dtype, std::uint32_t n, double value) {
    Memset m;
    m.dst = tile(dtype, n);
    m.value = value;
    return m;
  };
  // N = 512 zero bf16 / fp16 / int16: max(64, 256) = 256
  CHECK(busy_cycles(memset_of(DType::bf16, 512, 0.0), Engine::vector, p) == 256);
  CHECK(busy_cycles(memset_of(DType::fp16, 512, 0.0), Engine::vector, p) == 256);
  CHECK(busy_cycles(memset_of(DType::int16, 512, 0.0), Engine::gpsimd, p) == 256);
  // N = 100 zero bf16: max(64, 50) = 64; N = 129: max(64, ceil(64.5)) = 65
  CHECK(busy_cycles(memset_of(DType::bf16, 100, 0.0), Engine::vector, p) == 64);
  CHECK(busy_cycles(memset_of(DType::bf16, 129, 0.0), Engine::vector, p) == 65);
  // not zero, or not 16-bit, or -0.0 (bit pattern 0x8000): max(64, 512) = 512
  CHECK(busy_cycles(memset_of(DType::bf16, 512, 1.0), Engine::vector, p) == 512);
  CHECK(busy_cycles(memset_of(DType::fp32, 512, 0.0), Engine::vector, p) == 512);
  CHECK(busy_cycles(memset_of(DType::bf16, 512, -0.0), Engine::vector, p) == 512);
}

TEST_CASE("cost: iota and affine_select on GpSimd cost gpsimd_fixed + N", "[cost]") {
  const params::CostParams p = v2_params();
  Iota iota;
  iota.dst = tile(DType::int32, 512);
  // N = 512: 150 + 512 = 662
  CHECK(busy_cycles(iota, Engine::gpsimd, p) == 662);
  iota.dst = tile(DType::int32, 1);
  // N = 1: 150 + 1 = 151
  CHECK(busy_cycles(iota, Engine::gpsimd, p) == 151);
  AffineSelect sel;
  sel.src = tile(DType::fp32, 512);
  sel.dst = tile(DType::fp32, 512);
  // N = 512: 150 + 512 = 662
  CHECK(busy_cycles(sel, Engine::gpsimd, p) == 662);
}

TEST_CASE("cost: matmul MultiplyMoving is max(min(MM_INIT, N_stationary), N_moving)", "[cost]") {
  const params::CostParams p = v2_params();
  // bf16, N_stationary = 128, N_moving = 512: max(min(64, 128), 512) = 512
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 512), Engine::tensor, p) == 512);
  CHECK(multiply_moving_cycles(matmul_op(DType::bf16, 128, 512), p) == 512);
  // N_moving = 32: max(64, 32) = 64 (back-to-back multiplies issue every max(N, 64))
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 32), Engine::tensor, p) == 64);
  // N_stationary = 16, N_moving = 8: max(min(64, 16), 8) = 16
  CHECK(busy_cycles(matmul_op(DType::bf16, 16, 8), Engine::tensor, p) == 16);
  // fp8 and fp16 at the bf16 rate on v2 (fp8 speedup 1): 512
  CHECK(busy_cycles(matmul_op(DType::fp8_e4m3, 128, 512), Engine::tensor, p) == 512);
  CHECK(busy_cycles(matmul_op(DType::fp16, 128, 512), Engine::tensor, p) == 512);
  // partition count (K) does not change the cost: K = 1, 512
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 512, 1), Engine::tensor, p) == 512);
}

TEST_CASE("cost: fp32 matmul costs fp32_matmul_factor times more", "[cost]") {
  const params::CostParams p = v2_params();
  // fp32, N_moving = 512: 4 * max(64, 512) = 2048
  CHECK(busy_cycles(matmul_op(DType::fp32, 128, 512), Engine::tensor, p) == 2048);
  // fp32, N_moving = 32: 4 * max(64, 32) = 256
  CHECK(busy_cycles(matmul_op(DType::fp32, 128, 32), Engine::tensor, p) == 256);
  // tf32 is not fp32: max(64, 512) = 512
  CHECK(busy_cycles(matmul_op(DType::tf32, 128, 512), Engine::tensor, p) == 512);
}

TEST_CASE("cost: a real fp32_matmul_factor rounds the cycles up once", "[cost]") {
  params::CostParams p = v2_params();
  p.fp32_matmul_factor = 3.685;  // trn2: 667 / 181 TFLOPS (Trainium2 page)
  // N_moving = 512: max(ceil(64 * 3.685), ceil(512 * 3.685)) = max(236, 1887) = 1887
  CHECK(busy_cycles(matmul_op(DType::fp32, 128, 512), Engine::tensor, p) == 1887);
  // N_moving = 32: max(ceil(235.84), ceil(117.92)) = 236, the fill term
  CHECK(busy_cycles(matmul_op(DType::fp32, 128, 32), Engine::tensor, p) == 236);
  Matmul mm = matmul_op(DType::fp32, 128, 512);
  // LoadStationary of M = 128: ceil(128 * 3.685 / 4) = ceil(117.92) = 118
  CHECK(neuronsim::isa::load_stationary_cycles(mm, p) == 118);
  // bf16 does not pay it: 512
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 512), Engine::tensor, p) == 512);
}

TEST_CASE("cost: tensor-engine transpose is max(P, min(MM_INIT, F))", "[cost]") {
  const params::CostParams p = v2_params();
  auto transpose_of = [](std::uint32_t partitions, std::uint32_t free) {
    Transpose t;
    t.src = tile(DType::bf16, free, MemSpace::sbuf, 1, partitions);
    t.dst = tile(DType::fp32, partitions, MemSpace::psum, 1, free);
    return t;
  };
  CHECK(busy_cycles(transpose_of(128, 128), Engine::tensor, p) == 128);  // max(128, min(64, 128))
  CHECK(busy_cycles(transpose_of(32, 128), Engine::tensor, p) == 64);    // max(32, min(64, 128))
  CHECK(busy_cycles(transpose_of(32, 48), Engine::tensor, p) == 48);     // max(32, min(64, 48))
  CHECK(busy_cycles(transpose_of(16, 8), Engine::tensor, p) == 16);      // max(16, min(64, 8))
}

TEST_CASE("cost: tensor_tensor_scan streams like tensor_tensor, without the bf16 fast path",
          "[cost]") {
  const params::CostParams p = v2_params();
  // Not in the table: tensor_tensor's formula for two streamed inputs (docs/cost-model.md).
  const auto f512 = tile(DType::fp32, 512);
  TensorTensorScan s{f512, f512, f512};
  // N = 512, both inputs in SBUF: max(64, 2*512) = 1024
  CHECK(busy_cycles(s, Engine::vector, p) == 1024);
  // all bf16 add/multiply in SBUF stays 2N (the recurrence is serial): 1024
  const auto bf = tile(DType::bf16, 512);
  CHECK(busy_cycles(TensorTensorScan{bf, bf, bf}, Engine::vector, p) == 1024);
  // data1 in PSUM, data0 in SBUF: max(64, 512) = 512
  s.data1 = tile(DType::fp32, 512, MemSpace::psum);
  CHECK(busy_cycles(s, Engine::vector, p) == 512);
  // N = 20, both in SBUF: max(64, 40) = 64
  const auto f20 = tile(DType::fp32, 20);
  CHECK(busy_cycles(TensorTensorScan{f20, f20, f20}, Engine::vector, p) == 64);
  // model flops, one per output element (as a two-op tensor_scalar): 128 * 512 = 65536
  CHECK(flops_of(TensorTensorScan{f512, f512, f512}) == 128 * 512);
}

TEST_CASE("cost: reciprocal, dropout and tensor_partition_reduce", "[cost]") {
  const params::CostParams p = v2_params();
  const auto f512 = tile(DType::fp32, 512);
  // NKI reciprocal (ref section 4): max(MIN_II, 8N): 8 * 512 = 4096; N = 4: max(64, 32) = 64.
  CHECK(busy_cycles(Reciprocal{f512, f512}, Engine::vector, p) == 4096);
  CHECK(busy_cycles(Reciprocal{tile(DType::fp32, 4), tile(DType::fp32, 4)}, Engine::vector, p) ==
        64);
  // NKI dropout: max(MIN_II, N): 512; N = 20: 64.
  CHECK(busy_cycles(Dropout{f512, f512, 0.5f, 0}, Engine::vector, p) == 512);
  CHECK(busy_cycles(Dropout{tile(DType::fp32, 20), tile(DType::fp32, 20), 0.5f, 0}, Engine::vector,
                    p) == 64);
  // tensor_partition_reduce (no published cost): gpsimd_fixed + 2N = 150 + 2 * 512 = 1174.
  const auto one_row = tile(DType::fp32, 512, MemSpace::sbuf, 1, 1);
  CHECK(busy_cycles(PartitionReduce{one_row, f512, AluOp::add}, Engine::gpsimd, p) == 1174);
  // flops: one per element for reciprocal and dropout (128 * 512 = 65536); (P-1) * N for the
  // partition reduction (127 * 512 = 65024).
  CHECK(flops_of(Reciprocal{f512, f512}) == 65536);
  CHECK(flops_of(Dropout{f512, f512, 0.5f, 0}) == 65536);
  CHECK(flops_of(PartitionReduce{one_row, f512, AluOp::add}) == 65024);
}

TEST_CASE("cost: max8, nc_find_index8 and nc_match_replace8 are N cycles", "[cost]") {
  const params::CostParams p = v2_params();
  const auto data = tile(DType::fp32, 1000), eight = tile(DType::fp32, 8);
  // The pages: "N engine cycles", N = 1000 elements per partition, no MIN_II floor.
  CHECK(busy_cycles(Max8{eight, data}, Engine::vector, p) == 1000);
  CHECK(busy_cycles(FindIndex8{tile(DType::uint32, 8), data, eight}, Engine::vector, p) == 1000);
  CHECK(busy_cycles(MatchReplace8{data, data, eight, 0.0f, std::nullopt}, Engine::vector, p) ==
        1000);
  // 20 elements: 20 cycles (no floor)
  CHECK(busy_cycles(Max8{eight, tile(DType::fp32, 20)}, Engine::vector, p) == 20);
}
