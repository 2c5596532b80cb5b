// Validation of quantize_mx and nc_matmul_mx: each rule of the two NKI pages, and that
// targets without MX formats (tensor.mx_speedup 0: trn1, trn2) refuse both.
#include <catch2/catch.hpp>

#include "tests/unit/validate_fixtures.hpp"

using namespace validate_fixtures;

namespace {

params::TargetLimits trn3_like() {
  params::TargetLimits l = trn1_limits();
  l.mx_speedup = 4;     // trn3.json tensor.mx_speedup
  l.fp8_e4m3fn = true;  // trn3.json limits.fp8_e4m3fn
  return l;
}
// src [128, 512] bf16 in xt, dst [128, 128] e4m3fn_x4 in yt, dst_scale [128, 128] uint8 in wt.
QuantizeMx valid_quantize() {
  return QuantizeMx{sbuf(kY, 128, 128, DType::fp8_e4m3fn_x4), sbuf(kX, 128, 512, DType::bf16),
                    sbuf(kW, 128, 128, DType::uint8)};
}
// dst [128, 512] fp32 = stationary [128, 128] x moving [128, 512], x4 packed, uint8 scales.
MatmulMx valid_matmul_mx() {
  return MatmulMx{psum(kPs, 128, 512), sbuf(kX, 128, 128, DType::fp8_e4m3fn_x4),
                  sbuf(kY, 128, 512, DType::fp8_e5m2_x4), sbuf(kW, 128, 128, DType::uint8),
                  sbuf(kInt, 128, 512, DType::fp8_e8m0)};
}

}  // namespace

TEST_CASE("validate: quantize_mx and nc_matmul_mx need NeuronCore-v4", "[validate][mx]") {
  // trn1 and trn2 have tensor.mx_speedup 0: "Available only on NeuronCore-v4 and newer".
  expect_one(with(Engine::vector, valid_quantize()),
             "quantize_mx is not available on this target (NKI quantize_mx: available only on "
             "NeuronCore-v4 and newer; tensor.mx_speedup is 0)");
  expect_one(with(Engine::tensor, valid_matmul_mx()), "nc_matmul_mx is not available");
  expect_none(with(Engine::vector, valid_quantize()), trn3_like());
  expect_none(with(Engine::tensor, valid_matmul_mx()), trn3_like());
}

TEST_CASE("validate: quantize_mx rules of the NKI page", "[validate][mx]") {
  const auto l = trn3_like();
  auto q = valid_quantize();
  q.src.dtype = DType::fp32;
  expect_one(with(Engine::vector, q), "src is fp32; quantize_mx quantizes float16 or bfloat16", l);
  q = valid_quantize();
  q.src.dtype = DType::fp16;
  expect_none(with(Engine::vector, q), l);
  q = valid_quantize();
  q.dst.dtype = DType::uint32;
  expect_one(with(Engine::vector, q), "dst is uint32; quantize_mx writes a 4-packed MX type", l);
  q = valid_quantize();
  q.dst_scale.dtype = DType::int8;
  expect_one(with(Engine::vector, q), "dst_scale is int8; MX scales are float8_e8m0fnu", l);
  q = valid_quantize();
  q.dst_scale.dtype = DType::fp8_e8m0;
  expect_none(with(Engine::vector, q), l);
  q = valid_quantize();
  q.dst_scale.space = MemSpace::psum;
  q.dst_scale.buffer = kPs;
  expect_one(with(Engine::vector, q), "dst_scale must be in sbuf, not psum", l);
  // Partitions a multiple of 32 (16 is not), free size a multiple of 4 (510 is not).
  q = valid_quantize();
  q.src.partitions = q.dst.partitions = q.dst_scale.partitions = 16;
  expect_one(with(Engine::vector, q), "src has 16 partitions; MX data spans whole", l);
  q = valid_quantize();
  q.src.dims[0].size = 510;
  expect_one(with(Engine::vector, q), "src free size 510 is not a multiple of 4", l);
  q = valid_quantize();
  q.dst.dims[0].size = 64;
  expect_one(with(Engine::vector, q), "dst [128,64] is not [P, F/4] = [128,128]", l);
  // One quadrant: a 4-row or a 32-row scale tile; more quadrants: the data's partitions.
  q = valid_quantize();
  q.src.partitions = q.dst.partitions = 32;
  q.dst_scale.partitions = 4;
  expect_none(with(Engine::vector, q), l);
  q.dst_scale.partitions = 32;
  expect_none(with(Engine::vector, q), l);
  q = valid_quantize();
  q.dst_scale.partitions = 32;
  expect_one(with(Engine::vector, q), "dst_scale [32,128] is not [128,128]: one scale per 8 x 4",
             l);
}

TEST_CASE("validate: nc_matmul_mx rules of the NKI page", "[validate][mx]") {
  const auto l = trn3_like();
  auto mm = valid_matmul_mx();
  mm.stationary.dtype = DType::fp8_e4m3;
  expect_one(with(Engine::tensor, mm), "stationary is fp8_e4m3; nc_matmul_mx multiplies", l);
  mm = valid_matmul_mx();
  mm.moving_scale.dtype = DType::fp32;
  expect_one(with(Engine::tensor, mm), "moving_scale is fp32; MX scales", l);
  mm = valid_matmul_mx();
  mm.dst.dtype = DType::fp16;
  expect_one(with(Engine::tensor, mm), "dst is fp16; nc_matmul_mx writes float32 or bfloat16", l);
  mm = valid_matmul_mx();
  mm.dst.space = MemSpace::sbuf;
  mm.dst.buffer = kY;
  expect_one(with(Engine::tensor, mm), "dst must be in psum, not sbuf", l);
  mm = valid_matmul_mx();
  mm.moving.partitions = mm.moving_scale.partitions = 64;
  expect_one(with(Engine::tensor, mm), "stationary and moving partition counts differ", l);
  mm = valid_matmul_mx();
  mm.stationary.dims[0].size = mm.dst.partitions = 127;
  mm.stationary_scale.dims[0].size = 127;
  expect_one(with(Engine::tensor, mm), "stationary free size 127 must be even", l);
  // N: matmul_max_n fp32 elements with an fp32 dst (one PSUM bank), twice that with bf16
  // (the page's 512 and 1024); here with matmul_max_n 256 so that N = 512 fits the fixture.
  auto small_n = l;
  small_n.matmul_max_n = 256;
  expect_one(with(Engine::tensor, valid_matmul_mx()),
             "moving free size 512 exceeds 256 for a fp32 dst", small_n);
  mm = valid_matmul_mx();
  mm.dst.dtype = DType::bf16;
  expect_none(with(Engine::tensor, mm), small_n);
  mm = valid_matmul_mx();
  mm.dst = psum(kPs, 128, 256);
  expect_one(with(Engine::tensor, mm), "dst [128,256] is not [M,N] = [128,512]", l);
  mm = valid_matmul_mx();
  mm.stationary_scale.dims[0].size = 64;
  expect_one(with(Engine::tensor, mm), "stationary_scale [128,64] is not [128,128]", l);
}

TEST_CASE("validate: packed x4 operands only in MX instructions and plain DMA copies",
          "[validate][mx]") {
  const auto l = trn3_like();
  // A Vector copy cannot convert four packed values.
  expect_one(with(Engine::vector, TensorCopy{sbuf(kY, 128, 128, DType::fp8_e4m3fn_x4),
                                             sbuf(kX, 128, 128, DType::fp32)}),
             "dst is fp8_e4m3fn_x4, four packed values per element", l);
  // A DMA moves them byte for byte: the same dtype both sides.
  DmaCopy same;
  same.dst = sbuf(kX, 128, 128, DType::fp8_e4m3fn_x4);
  same.src = sbuf(kY, 128, 128, DType::fp8_e4m3fn_x4);
  expect_none(with(Engine::sync, same), l);
  DmaCopy cast = same;
  cast.dst.dtype = DType::fp32;
  expect_one(with(Engine::sync, cast), "src is fp8_e4m3fn_x4, four packed", l);
}

TEST_CASE("validate: fp8_e4m3fn is a dtype of NeuronCore-v4 only", "[validate][mx]") {
  // NCC_EVRF051: "Data type F8E4M3FN is not supported on TRN1/TRN2". One problem per
  // operand of that dtype, naming the operand; fp8_e4m3 (v2/v3's fp8) is fine everywhere.
  const Kernel copy =
      with(Engine::vector, TensorCopy{sbuf(kY, 128, 128, DType::fp8_e4m3fn), sbuf(kX, 128, 128)});
  expect_one(copy,
             "dst: dtype fp8_e4m3fn (float8_e4m3fn) is not supported on this target (NCC_EVRF051: "
             "natively supported on Trainium3 and later; limits.fp8_e4m3fn is false)");
  expect_none(copy, trn3_like());
  expect_none(
      with(Engine::vector, TensorCopy{sbuf(kY, 128, 128, DType::fp8_e4m3), sbuf(kX, 128, 128)}));
  // Both operands: two problems.
  const Kernel both = with(Engine::vector, TensorCopy{sbuf(kY, 128, 128, DType::fp8_e4m3fn),
                                                      sbuf(kX, 128, 128, DType::fp8_e4m3fn)});
  CHECK(check(both, trn1_limits()).size() == 2);
}
