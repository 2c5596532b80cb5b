// Cost of the MX instructions: nc_matmul_mx (LoadStationary + MultiplyMoving with four
// contraction rows per partition at tensor.mx_speedup times the bf16 rate) and quantize_mx
// (one streaming pass on Vector). Each count is derived in its comment.
#include <catch2/catch.hpp>

#include "tests/unit/cost_model_fixtures.hpp"

using namespace cost_test;

namespace {

// NeuronCore-v4's MX rate (trn3.json tensor.mx_speedup): 4x bf16.
params::CostParams v4_mx_params() {
  params::CostParams p = v3_params();
  p.mx_speedup = 4;
  return p;
}
MatmulMx mx_op(std::uint32_t m, std::uint32_t n, std::int32_t moving_stride = 1) {
  return MatmulMx{tile(DType::fp32, n, MemSpace::psum, 1, m), tile(DType::fp8_e4m3fn_x4, m),
                  tile(DType::fp8_e5m2_x4, n, MemSpace::sbuf, moving_stride), tile(DType::uint8, m),
                  tile(DType::uint8, n)};
}

}  // namespace

TEST_CASE("cost: nc_matmul_mx streams 4 rows per partition at mx_speedup", "[cost][mx]") {
  const params::CostParams p = v4_mx_params();
  // K = 128 partitions (512 rows), M = 128, N = 512: LoadStationary ceil(128 / 4) = 32, then
  // max(min(64, 128), 512 * 4 / 4) = 512: 544, a bf16 [128,128]x[128,512] matmul's 32 + 512
  // for four times the contraction.
  CHECK(busy_cycles(mx_op(128, 512), Engine::tensor, p) == 32 + 512);
  // N = 16: the fill min(64, 128) = 64 dominates 16 * 4 / 4: 32 + 64 = 96.
  CHECK(busy_cycles(mx_op(128, 16), Engine::tensor, p) == 32 + 64);
  // M = 2: LoadStationary ceil(2 / 4) = 1, fill min(64, 2) = 2, stream 512: 513.
  CHECK(busy_cycles(mx_op(2, 512), Engine::tensor, p) == 1 + 512);
  // A moving stride of 8 elements (32 bytes > stride_penalty_bytes 16) doubles the stream:
  // max(64, 512 * 4 * 2 / 4) = 1024, + 32.
  CHECK(busy_cycles(mx_op(128, 512, 8), Engine::tensor, p) == 32 + 1024);
  // At mx_speedup 2 the stream takes twice as long: 512 * 4 / 2 = 1024, + 32.
  params::CostParams half = p;
  half.mx_speedup = 2;
  CHECK(busy_cycles(mx_op(128, 512), Engine::tensor, half) == 32 + 1024);
  // Flops count the 4K contraction: 2 * 512 * 128 * 512.
  Instruction instr;
  instr.op = mx_op(128, 512);
  CHECK(flops(instr) == 2ull * 512 * 128 * 512);
}

TEST_CASE("cost: quantize_mx is one pass over the source on Vector", "[cost][mx]") {
  const params::CostParams p = v4_mx_params();
  // src bf16 [128, 512] with a 4-byte dst: all in SBUF and contiguous, not a copy, so the
  // "other dtypes" width 256: max(MIN_II 64, 512 * 128 / 256) = 256.
  QuantizeMx q{tile(DType::fp8_e4m3fn_x4, 128), tile(DType::bf16, 512), tile(DType::uint8, 128)};
  CHECK(busy_cycles(q, Engine::vector, p) == 256);
  // N = 64: 64 * 128 / 256 = 32 against MIN_II: 64.
  QuantizeMx small{tile(DType::fp8_e4m3fn_x4, 16), tile(DType::bf16, 64), tile(DType::uint8, 16)};
  CHECK(busy_cycles(small, Engine::vector, p) == 64);
  Instruction instr;
  instr.op = q;
  CHECK(flops(instr) == 0);
}
