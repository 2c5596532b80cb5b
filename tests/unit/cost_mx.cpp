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
  // The busy cycles are MultiplyMoving's; LoadStationary is the plan's load part, paid or
  // reused by the Tensor engine as a plain matmul's.
  // K = 128 partitions (512 rows), M = 128, N = 512: LoadStationary ceil(128 / 4) = 32, then
  // max(min(64, 128), 512 * 4 / 4) = 512: a bf16 [128,128]x[128,512] matmul's 32 + 512 for
  // four times the contraction.
  CHECK(load_stationary_cycles(mx_op(128, 512), p) == 32);
  CHECK(busy_cycles(mx_op(128, 512), Engine::tensor, p) == 512);
  // N = 16: the fill min(64, 128) = 64 dominates 16 * 4 / 4.
  CHECK(busy_cycles(mx_op(128, 16), Engine::tensor, p) == 64);
  // M = 2: LoadStationary ceil(2 / 4) = 1, fill min(64, 2) = 2, stream 512.
  CHECK(load_stationary_cycles(mx_op(2, 512), p) == 1);
  CHECK(busy_cycles(mx_op(2, 512), Engine::tensor, p) == 512);
  // A moving stride of 8 elements (32 bytes > stride_penalty_bytes 16) doubles the stream:
  // max(64, 512 * 4 * 2 / 4) = 1024; the stationary is contiguous: 32.
  CHECK(busy_cycles(mx_op(128, 512, 8), Engine::tensor, p) == 1024);
  CHECK(load_stationary_cycles(mx_op(128, 512, 8), p) == 32);
  // At mx_speedup 2 the stream takes twice as long: 512 * 4 / 2 = 1024.
  params::CostParams half = p;
  half.mx_speedup = 2;
  CHECK(busy_cycles(mx_op(128, 512), Engine::tensor, half) == 1024);
  // The what-if percent scales both parts: 150% of 32 = 48, of 512 = 768.
  params::CostParams slower = p;
  slower.tensor_cost_percent = 150;
  CHECK(load_stationary_cycles(mx_op(128, 512), slower) == 48);
  CHECK(busy_cycles(mx_op(128, 512), Engine::tensor, slower) == 768);
  // Flops count the 4K contraction: 2 * 512 * 128 * 512.
  Instruction instr;
  instr.op = mx_op(128, 512);
  CHECK(flops(instr) == 2ull * 512 * 128 * 512);
}

TEST_CASE("cost: quantize_mx is one pass over the source on Vector", "[cost][mx]") {
  const params::CostParams p = v4_mx_params();
  // src bf16 [128, 512], all in SBUF and contiguous: the 16-bit width 512, the Trainium3
  // guide's 4 elements per partition per cycle: max(MIN_II 64, 512 * 128 / 512) = 128.
  QuantizeMx q{tile(DType::fp8_e4m3fn_x4, 128), tile(DType::bf16, 512), tile(DType::uint8, 128)};
  CHECK(busy_cycles(q, Engine::vector, p) == 128);
  // N = 128: 128 * 128 / 512 = 32 against MIN_II: 64.
  QuantizeMx small{tile(DType::fp8_e4m3fn_x4, 32), tile(DType::bf16, 128), tile(DType::uint8, 32)};
  CHECK(busy_cycles(small, Engine::vector, p) == 64);
  // A source read every other element (4 bytes, no stride penalty) is not contiguous: the
  // "other dtypes" width 256, 512 * 128 / 256 = 256.
  QuantizeMx strided{tile(DType::fp8_e4m3fn_x4, 128), tile(DType::bf16, 512, MemSpace::sbuf, 2),
                     tile(DType::uint8, 128)};
  CHECK(busy_cycles(strided, Engine::vector, p) == 256);
  // Every 16th (32 bytes > stride_penalty_bytes 16): also the penalty 2, 512.
  QuantizeMx sparse{tile(DType::fp8_e4m3fn_x4, 128), tile(DType::bf16, 512, MemSpace::sbuf, 16),
                    tile(DType::uint8, 128)};
  CHECK(busy_cycles(sparse, Engine::vector, p) == 512);
  Instruction instr;
  instr.op = q;
  CHECK(flops(instr) == 0);
}
