// v3/v4 scaling: the N part of each formula runs at baseline / width of the engine for the
// operand dtype and the Vector performance mode (reference sections 1 and 4). Parameters:
// v3_params() = v2 with Vector 512 (16-bit) / 256 (other) and fp8 matmul x2.
#include <catch2/catch.hpp>

#include "cost/rate.hpp"
#include "cost_model_fixtures.hpp"

using namespace cost_test;

TEST_CASE("cost: v3 Vector full mode for contiguous 16-bit SBUF copy/tensor_scalar", "[cost]") {
  const params::CostParams p = v3_params();
  // N = 2048 bf16 copy: ceil(2048 * 128 / 512) = 512
  CHECK(busy_cycles(copy_op(DType::bf16, 2048), Engine::vector, p) == 512);
  Instruction copy;
  copy.op = copy_op(DType::bf16, 2048);
  CHECK(cost::vector_mode(copy, p) == cost::VectorMode::full);
  // fp16 in, bf16 out still qualifies: 512
  CHECK(busy_cycles(copy_op(tile(DType::fp16, 2048), tile(DType::bf16, 2048)), Engine::vector, p) ==
        512);
  // tensor_scalar bf16 N = 2048: 512
  CHECK(busy_cycles(ts_op(DType::bf16, 2048, AluOp::multiply, 3.0f), Engine::vector, p) == 512);
  // N = 257: ceil(257 / 4) = 65; N = 128: max(64, 32) = 64 (MIN_II still holds)
  CHECK(busy_cycles(copy_op(DType::bf16, 257), Engine::vector, p) == 65);
  CHECK(busy_cycles(copy_op(DType::bf16, 128), Engine::vector, p) == 64);
  // reciprocal bf16: max(64, 8 * 2048 * 128 / 512) = 4096
  CHECK(busy_cycles(ts_op(DType::bf16, 2048, AluOp::divide, 1.0f, true), Engine::vector, p) ==
        4096);
}

TEST_CASE("cost: v3 Vector half mode and non-qualifying operands", "[cost]") {
  const params::CostParams p = v3_params();
  // fp32 contiguous SBUF copy, N = 2048: 2048 * 128 / 256 = 1024 (the "other" width)
  CHECK(busy_cycles(copy_op(DType::fp32, 2048), Engine::vector, p) == 1024);
  // bf16 copy from PSUM (contiguous): 2x, 1024
  CHECK(busy_cycles(copy_op(tile(DType::bf16, 2048, MemSpace::psum), tile(DType::bf16, 2048)),
                    Engine::vector, p) == 1024);
  // bf16 copy with stride 2 (4 bytes, no penalty) in SBUF: 2x, 1024
  CHECK(busy_cycles(copy_op(tile(DType::bf16, 2048, MemSpace::sbuf, 2), tile(DType::bf16, 2048)),
                    Engine::vector, p) == 1024);
  // bf16 from PSUM and strided: v2 rate, 2048
  CHECK(busy_cycles(copy_op(tile(DType::bf16, 2048, MemSpace::psum, 2), tile(DType::bf16, 2048)),
                    Engine::vector, p) == 2048);
  // fp32 from PSUM: v2 rate, max(64, 2048) = 2048
  CHECK(busy_cycles(copy_op(tile(DType::fp32, 2048, MemSpace::psum), tile(DType::fp32, 2048)),
                    Engine::vector, p) == 2048);
  // bf16 stride 16 (32 bytes): 2x width and 2x penalty: 2048 * 2 * 128 / 256 = 2048
  CHECK(busy_cycles(copy_op(tile(DType::bf16, 2048, MemSpace::sbuf, 16), tile(DType::bf16, 2048)),
                    Engine::vector, p) == 2048);
  // tensor_tensor all-bf16 SBUF add: 2x, 2048 * 128 / 256 = 1024
  const auto b = tile(DType::bf16, 2048), f = tile(DType::fp32, 2048);
  CHECK(busy_cycles(tt_op(b, b, b, AluOp::add), Engine::vector, p) == 1024);
  // tensor_tensor fp32 SBUF add: 2N at the "other" width: 2 * 2048 * 128 / 256 = 2048
  CHECK(busy_cycles(tt_op(f, f, f, AluOp::add), Engine::vector, p) == 2048);
  // tensor_tensor with a PSUM input: v2 rate, max(64, 2048) = 2048
  CHECK(busy_cycles(tt_op(tile(DType::fp32, 2048, MemSpace::psum), f, f, AluOp::add),
                    Engine::vector, p) == 2048);
  // memset zero bf16 (not a copy): half width, 2048 / 2 * 128 / 256 = 512
  Memset m;
  m.dst = b;
  CHECK(busy_cycles(m, Engine::vector, p) == 512);
  // tensor_reduce bf16 add, N = 2048: 2048 / 2 * 128 / 256 = 512
  TensorReduce red;
  red.src = b;
  red.dst = column(DType::bf16);
  CHECK(busy_cycles(red, Engine::vector, p) == 512);
}

TEST_CASE("cost: v3 Scalar and GpSimd keep their widths", "[cost]") {
  params::CostParams p = v3_params();
  Activation act;
  act.src = tile(DType::bf16, 2048);
  act.dst = tile(DType::bf16, 2048);
  // Scalar 128 on v3: max(64, 2048) = 2048
  CHECK(busy_cycles(act, Engine::scalar, p) == 2048);
  // GpSimd 128: 150 + 512 = 662; GpSimd tensor_copy bf16: 2048
  Iota iota;
  iota.dst = tile(DType::int32, 512);
  CHECK(busy_cycles(iota, Engine::gpsimd, p) == 662);
  CHECK(busy_cycles(copy_op(DType::bf16, 2048), Engine::gpsimd, p) == 2048);
  // v4-like Scalar (256 for 16-bit/fp8, 128 other): bf16 2048 * 128 / 256 = 1024
  p.scalar_elems_per_cycle_16bit = 256;
  CHECK(busy_cycles(act, Engine::scalar, p) == 1024);
  act.src = tile(DType::fp32, 2048);
  // one fp32 operand: 128 wide, 2048
  CHECK(busy_cycles(act, Engine::scalar, p) == 2048);
}

TEST_CASE("cost: tensor_scalar on Scalar streams at the Scalar width", "[cost]") {
  // NKI runs tensor_scalar on the Scalar engine too; there it uses Scalar's datapath, not
  // Vector's performance modes. bf16 (multiply, add), N = 2048, all SBUF and contiguous:
  params::CostParams p = v3_params();
  TensorScalar ts = ts_op(DType::bf16, 2048, AluOp::multiply, 2.0f);
  ts.op1 = AluOp::add;
  // Vector full mode: 2048 * 128 / 512 = 512; Scalar 128 on v3: 2048
  CHECK(busy_cycles(ts, Engine::vector, p) == 512);
  CHECK(busy_cycles(ts, Engine::scalar, p) == 2048);
  // v4 Scalar, 256 for 16-bit: 2048 * 128 / 256 = 1024
  p.scalar_elems_per_cycle_16bit = 256;
  CHECK(busy_cycles(ts, Engine::scalar, p) == 1024);
  // N = 16 dependent on the previous instruction: max(64, 16) + dependent_overhead 100 = 164
  CHECK(busy_cycles(ts_op(DType::fp32, 16, AluOp::add, 1.0f), Engine::scalar, p, true) == 164);
}

TEST_CASE("cost: v3 fp8 matmul runs double_row_speedup times faster in double_row only", "[cost]") {
  const params::CostParams p = v3_params();
  // fp8 x fp8 without the mode, N_moving = 512: max(64, 512) = 512, the bf16 rate (the mode
  // is asked for: nki.isa.matmul_perf_mode).
  CHECK(busy_cycles(matmul_op(DType::fp8_e4m3, 128, 512), Engine::tensor, p) == 512);
  CHECK(busy_cycles(matmul_op(DType::bf16, 128, 512), Engine::tensor, p) == 512);
  // double_row [128, 2, 128] x [128, 2, 512]: the moving stream of 1024 elements at 2x,
  // max(min(64, M = 128), 1024 / 2) = 512: the time of the bf16 [128,128]x[128,512], with
  // twice the contraction (Trainium2 guide: the same time as a 128-deep BF16 LS/MM).
  CHECK(busy_cycles(double_row_op(DType::fp8_e4m3, 128, 512), Engine::tensor, p) == 512);
  // e4m3 stationary with e5m2 moving (the guide allows the mix): 512
  Matmul mixed = double_row_op(DType::fp8_e4m3, 128, 512);
  mixed.moving.dtype = DType::fp8_e5m2;
  CHECK(busy_cycles(mixed, Engine::tensor, p) == 512);
  // Small N = 16 per row: stream 32 / 2 = 16 against the fill min(64, 128) = 64: 64
  CHECK(busy_cycles(double_row_op(DType::fp8_e4m3, 128, 16), Engine::tensor, p) == 64);
  // LoadStationary, M = 128: plain fp8 ceil(128 / 4) = 32; double_row 256 elements at
  // 4 x 2: ceil(256 / 8) = 32, the bf16 load's time.
  CHECK(load_stationary_cycles(matmul_op(DType::fp8_e4m3, 128, 512), p) == 32);
  CHECK(load_stationary_cycles(double_row_op(DType::fp8_e4m3, 128, 512), p) == 32);
  // Flops count the 2K contraction: 2 * 256 * 128 * 512.
  Instruction instr;
  instr.op = double_row_op(DType::fp8_e4m3, 128, 512);
  CHECK(flops(instr) == 2ull * 256 * 128 * 512);
}
