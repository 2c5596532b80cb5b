// The cost model's rules beyond the table rows: MIN_II boundaries, LoadStationary, the
// stride penalty, the dependent-tiny overhead, instructions the table does not list,
// bad parameters, and flops. Parameters: v2_params() (reference section 4).
#include <catch2/catch.hpp>

#include "base/error.hpp"
#include "cost_model_fixtures.hpp"

using namespace cost_test;

TEST_CASE("cost: MIN_II boundaries at N = 1, 63, 64, 65", "[cost]") {
  const params::CostParams p = v2_params();
  // tensor_copy fp32: max(64, N)
  CHECK(busy_cycles(copy_op(DType::fp32, 1), Engine::vector, p) == 64);
  CHECK(busy_cycles(copy_op(DType::fp32, 63), Engine::vector, p) == 64);
  CHECK(busy_cycles(copy_op(DType::fp32, 64), Engine::vector, p) == 64);
  CHECK(busy_cycles(copy_op(DType::fp32, 65), Engine::vector, p) == 65);
  // tensor_tensor fp32: max(64, 2N): N = 31 -> 64, N = 32 -> 64, N = 33 -> 66
  for (auto [n, expected] : {std::pair{31u, 64u}, {32u, 64u}, {33u, 66u}, {1u, 64u}}) {
    const auto t = tile(DType::fp32, n);
    CHECK(busy_cycles(tt_op(t, t, t, AluOp::add), Engine::vector, p) == expected);
  }
  // matmul bf16, N_stationary = 128: max(64, N_moving): 1 -> 64, 63 -> 64, 64 -> 64, 65 -> 65
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 1), Engine::tensor, p) == 64);
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 63), Engine::tensor, p) == 64);
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 64), Engine::tensor, p) == 64);
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 65), Engine::tensor, p) == 65);
}

TEST_CASE("cost: cost does not depend on the partition count", "[cost]") {
  const params::CostParams p = v2_params();
  // N = 512 fp32 on 1 and on 128 partitions: max(64, 512) = 512 both
  const auto one = copy_op(tile(DType::fp32, 512, MemSpace::sbuf, 1, 1),
                           tile(DType::fp32, 512, MemSpace::sbuf, 1, 1));
  CHECK(busy_cycles(one, Engine::vector, p) == 512);
  CHECK(busy_cycles(copy_op(DType::fp32, 512), Engine::vector, p) == 512);
}

TEST_CASE("cost: multi-dimensional access patterns use their total free size", "[cost]") {
  const params::CostParams p = v2_params();
  AccessPattern ap = tile(DType::fp32, 1);
  ap.ndims = 2;
  ap.dims[0] = Dim{1024, 4};  // outer: 4 rows 1024 elements apart
  ap.dims[1] = Dim{1, 128};   // inner: contiguous
  // N = 4 * 128 = 512, innermost stride 1: max(64, 512) = 512
  CHECK(busy_cycles(copy_op(ap, tile(DType::fp32, 512)), Engine::vector, p) == 512);
}

TEST_CASE("cost: LoadStationary is up to load_stationary_speedup times faster", "[cost]") {
  const params::CostParams p = v2_params();
  // M = 128 bf16 stationary columns: ceil(128 / 4) = 32
  CHECK(load_stationary_cycles(matmul_op(DType::bf16, 128, 512), p) == 32);
  // M = 127: ceil(127 / 4) = 32; M = 1: ceil(1 / 4) = 1
  CHECK(load_stationary_cycles(matmul_op(DType::bf16, 127, 512), p) == 32);
  CHECK(load_stationary_cycles(matmul_op(DType::bf16, 1, 512), p) == 1);
  // fp32, M = 128: 4 * 128 / 4 = 128
  CHECK(load_stationary_cycles(matmul_op(DType::fp32, 128, 512), p) == 128);
  // cycles() is the MultiplyMoving part only: max(64, 512) = 512
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 512), Engine::tensor, p) == 512);
}

TEST_CASE("cost: innermost stride above stride_penalty_bytes doubles the N part", "[cost]") {
  const params::CostParams p = v2_params();
  auto strided_copy = [](DType dtype, std::uint32_t n, std::int32_t stride) {
    return copy_op(tile(dtype, n, MemSpace::sbuf, stride), tile(dtype, n));
  };
  // fp32 stride 4 = 16 bytes, not above 16: max(64, 512) = 512
  CHECK(busy_cycles(strided_copy(DType::fp32, 512, 4), Engine::vector, p) == 512);
  // fp32 stride 5 = 20 bytes: max(64, 2 * 512) = 1024
  CHECK(busy_cycles(strided_copy(DType::fp32, 512, 5), Engine::vector, p) == 1024);
  // bf16 stride 8 = 16 bytes: 512; stride 9 = 18 bytes: 1024
  CHECK(busy_cycles(strided_copy(DType::bf16, 512, 8), Engine::vector, p) == 512);
  CHECK(busy_cycles(strided_copy(DType::bf16, 512, 9), Engine::vector, p) == 1024);
  // negative stride counts by magnitude: fp32 stride -8 = 32 bytes: 1024
  CHECK(busy_cycles(strided_copy(DType::fp32, 512, -8), Engine::vector, p) == 1024);
  // only the N part pays: N = 20, stride 8 fp32: max(64, 2 * 20) = 64
  CHECK(busy_cycles(strided_copy(DType::fp32, 20, 8), Engine::vector, p) == 64);
  // the strided operand may be the destination, in PSUM: max(64, 1024) = 1024
  CHECK(busy_cycles(copy_op(tile(DType::fp32, 512), tile(DType::fp32, 512, MemSpace::psum, 8)),
                    Engine::vector, p) == 1024);
  // the innermost dimension with more than one element decides: inner (stride 100, size 1)
  // under (stride 8, size 64): 8 fp32 = 32 bytes, max(64, 2 * 64) = 128
  AccessPattern ap = tile(DType::fp32, 1);
  ap.ndims = 2;
  ap.dims[0] = Dim{8, 64};
  ap.dims[1] = Dim{100, 1};
  CHECK(busy_cycles(copy_op(ap, tile(DType::fp32, 64)), Engine::vector, p) == 128);
  // tensor_tensor otherwise, strided: max(64, 2 * 2 * 512) = 2048
  const auto f = tile(DType::fp32, 512);
  CHECK(busy_cycles(tt_op(tile(DType::fp32, 512, MemSpace::sbuf, 8), f, f, AluOp::add),
                    Engine::vector, p) == 2048);
  // GpSimd iota with a 32-byte stride: 150 + 2 * 100 = 350
  Iota iota;
  iota.dst = tile(DType::int32, 100, MemSpace::sbuf, 8);
  CHECK(busy_cycles(iota, Engine::gpsimd, p) == 350);
  // matmul with a strided moving tensor (bf16 stride 16 = 32 bytes):
  // max(min(64, 128), 2 * 512) = 1024; LoadStationary is unaffected: 32
  Matmul mm = matmul_op(DType::bf16, 128, 512);
  mm.moving = tile(DType::bf16, 512, MemSpace::sbuf, 16);
  CHECK(busy_cycles(mm, Engine::tensor, p) == 1024);
  CHECK(load_stationary_cycles(mm, p) == 32);
  // a strided stationary doubles LoadStationary: ceil(2 * 128 / 4) = 64
  mm = matmul_op(DType::bf16, 128, 512);
  mm.stationary = tile(DType::bf16, 128, MemSpace::sbuf, 16);
  CHECK(load_stationary_cycles(mm, p) == 64);
  // a [P,1] scale vector is not streamed and never strided: max(64, 512) = 512
  TensorScalar ts = ts_op(DType::fp32, 512, AluOp::multiply, column());
  CHECK(busy_cycles(ts, Engine::vector, p) == 512);
}

TEST_CASE("cost: dependent tiny instructions pay dependent_overhead", "[cost]") {
  const params::CostParams p = v2_params();  // tiny: N <= 64
  // N = 32 dependent: max(64, 32) + 100 = 164; independent: 64
  CHECK(busy_cycles(copy_op(DType::fp32, 32), Engine::vector, p, true) == 164);
  CHECK(busy_cycles(copy_op(DType::fp32, 32), Engine::vector, p, false) == 64);
  // N = 64 is still tiny: 64 + 100 = 164; N = 65 is not: 65
  CHECK(busy_cycles(copy_op(DType::fp32, 64), Engine::vector, p, true) == 164);
  CHECK(busy_cycles(copy_op(DType::fp32, 65), Engine::vector, p, true) == 65);
  // activation with reduce, N = 16 dependent: max(64, 16) + 64 + 100 = 228
  Activation act;
  act.src = tile(DType::fp32, 16);
  act.dst = tile(DType::fp32, 16);
  act.reduce_dst = column();
  CHECK(busy_cycles(act, Engine::scalar, p, true) == 228);
  // GpSimd iota N = 8 dependent: 150 + 8 + 100 = 258
  Iota iota;
  iota.dst = tile(DType::int32, 8);
  CHECK(busy_cycles(iota, Engine::gpsimd, p, true) == 258);
  // Tensor engine: accumulation chains are pipelined, no overhead: max(64, 32) = 64
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 32), Engine::tensor, p, true) == 64);
}

TEST_CASE("cost: instructions the table does not list", "[cost]") {
  const params::CostParams p = v2_params();
  // bn_stats, N = 512: max(64, 512) = 512; N = 48: 64
  BnStats st;
  st.src = tile(DType::fp32, 512);
  st.dst = tile(DType::fp32, 6);
  CHECK(busy_cycles(st, Engine::vector, p) == 512);
  st.src = tile(DType::fp32, 48);
  CHECK(busy_cycles(st, Engine::vector, p) == 64);
  // select, all SBUF, N = 512: max(64, 2 * 512) = 1024; predicate in PSUM: 512
  Select sel;
  sel.predicate = tile(DType::uint8, 512);
  sel.on_true = tile(DType::fp32, 512);
  sel.on_false = tile(DType::fp32, 512);
  sel.dst = tile(DType::fp32, 512);
  CHECK(busy_cycles(sel, Engine::vector, p) == 1024);
  sel.predicate = tile(DType::uint8, 512, MemSpace::psum);
  CHECK(busy_cycles(sel, Engine::vector, p) == 512);
  // Vector transpose of 32x32: N = 32, max(64, 32) = 64
  Transpose tr;
  tr.src = tile(DType::fp32, 32, MemSpace::sbuf, 1, 32);
  tr.dst = tile(DType::fp32, 32, MemSpace::sbuf, 1, 32);
  CHECK(busy_cycles(tr, Engine::vector, p) == 64);
  // iota runs on GpSimd only (NKI iota): the cost model refuses it elsewhere
  Iota iota;
  iota.dst = tile(DType::int32, 512);
  CHECK_THROWS_WITH(busy_cycles(iota, Engine::vector, p),
                    Catch::Contains("iota cannot run on the vector engine"));
  // dma_copy and nop cost the issuing engine nothing, on every engine
  DmaCopy dma;
  dma.src = tile(DType::fp32, 512, MemSpace::hbm);
  dma.dst = tile(DType::fp32, 512);
  for (Engine e : {Engine::sync, Engine::vector, Engine::scalar, Engine::gpsimd, Engine::tensor}) {
    CHECK(busy_cycles(dma, e, p) == 0);
    CHECK(busy_cycles(Nop{}, e, p) == 0);
  }
}

TEST_CASE("cost: bad engine or unset parameters raise neuronsim::Error", "[cost]") {
  const params::CostParams p = v2_params();
  CHECK_THROWS_AS(busy_cycles(matmul_op(DType::bf16, 128, 512), Engine::vector, p),
                  neuronsim::Error);
  CHECK_THROWS_WITH(busy_cycles(copy_op(DType::fp32, 8), Engine::tensor, p),
                    Catch::Contains("tensor_copy") && Catch::Contains("tensor engine"));
  params::CostParams q = p;
  q.baseline_elems_per_cycle = 0;
  CHECK_THROWS_WITH(busy_cycles(copy_op(DType::fp32, 8), Engine::vector, q),
                    Catch::Contains("baseline_elems_per_cycle"));
  q = p;
  q.bn_aggr_denominator = 0;
  BnAggr agg;
  agg.src = tile(DType::fp32, 6);
  agg.dst = tile(DType::fp32, 2);
  CHECK_THROWS_WITH(busy_cycles(agg, Engine::vector, q), Catch::Contains("bn_aggr_denominator"));
  q = p;
  q.load_stationary_speedup = 0;
  CHECK_THROWS_AS(load_stationary_cycles(matmul_op(DType::bf16, 128, 512), q), neuronsim::Error);
}

TEST_CASE("cost: flops", "[cost]") {
  // matmul K = 128, M = 128, N = 512: 2 * 128 * 128 * 512 = 16777216
  CHECK(flops_of(matmul_op(DType::bf16, 128, 512)) == 16777216);
  // activation on 128 x 512: 65536; with a reduction, one more per element: 131072
  Activation act;
  act.src = tile(DType::fp32, 512);
  act.dst = tile(DType::fp32, 512);
  CHECK(flops_of(act) == 65536);
  act.reduce_dst = column();
  CHECK(flops_of(act) == 131072);
  // tensor_tensor 128 x 512: 65536; tensor_scalar with reduce: 131072
  const auto f = tile(DType::fp32, 512);
  CHECK(flops_of(tt_op(f, f, f, AluOp::add)) == 65536);
  TensorScalar ts = ts_op(DType::fp32, 512, AluOp::multiply, 2.0f);
  ts.reduce_dst = column();
  CHECK(flops_of(ts) == 131072);
  // tensor_reduce consumes 128 x 512 elements: 65536
  TensorReduce red;
  red.src = f;
  red.dst = column();
  CHECK(flops_of(red) == 65536);
  // data movement: transpose, copy, dma, nop: 0
  Transpose tr;
  tr.src = tile(DType::bf16, 128);
  tr.dst = tile(DType::fp32, 128, MemSpace::psum);
  CHECK(flops_of(tr) == 0);
  CHECK(flops_of(copy_op(DType::fp32, 512)) == 0);
  DmaCopy dma;
  dma.src = tile(DType::fp32, 512, MemSpace::hbm);
  dma.dst = f;
  CHECK(flops_of(dma) == 0);
  CHECK(flops_of(Nop{}) == 0);
}
