// The MFU peak of a kernel: the Tensor engine's peak for its matmuls' dtypes
// (profile/peak_flops.hpp; reference section 1 gives per-core TFLOPS by dtype).
#include <catch2/catch.hpp>

#include "config/target_config.hpp"
#include "profile/peak_flops.hpp"

using namespace neuronsim;
using isa::DType;

namespace {

isa::AccessPattern sbuf(DType t, std::uint32_t partitions, std::uint32_t free) {
  isa::AccessPattern ap;
  ap.space = isa::MemSpace::sbuf;
  ap.dtype = t;
  ap.partitions = partitions;
  ap.dims[0] = {1, free};
  return ap;
}

// A matmul of K = 128, M = 128, N = 512: 2 * 128 * 128 * 512 flops.
isa::Instruction matmul(DType stationary, DType moving) {
  isa::AccessPattern dst = sbuf(DType::fp32, 128, 512);
  dst.space = isa::MemSpace::psum;
  isa::Instruction i;
  i.op = isa::Matmul{dst, sbuf(stationary, 128, 128), sbuf(moving, 128, 512)};
  return i;
}

isa::Kernel with(std::vector<isa::Instruction> matmuls) {
  isa::Kernel k;
  k.stream(isa::Engine::tensor) = std::move(matmuls);
  return k;
}

}  // namespace

TEST_CASE("profile: the MFU peak is the TFLOPS of the kernel's matmul dtypes", "[profile]") {
  const config::TargetConfig t = config::load_target("trn2");  // 79 bf16, 158 fp8, 20 fp32
  using profile::peak_flops_per_s;
  CHECK(peak_flops_per_s(t, with({})) == 79e12);  // no matmuls: the bf16 peak
  CHECK(peak_flops_per_s(t, with({matmul(DType::bf16, DType::bf16)})) == 79e12);
  CHECK(peak_flops_per_s(t, with({matmul(DType::fp16, DType::fp16)})) == 79e12);
  CHECK(peak_flops_per_s(t, with({matmul(DType::fp8_e4m3, DType::fp8_e5m2)})) == 158e12);
  CHECK(peak_flops_per_s(t, with({matmul(DType::fp32, DType::fp32)})) == 20e12);
  // Equal flops at 79 and 158: 2 / (1/79 + 1/158) = 105.33 TFLOPS.
  CHECK(peak_flops_per_s(t, with({matmul(DType::bf16, DType::bf16),
                                  matmul(DType::fp8_e4m3, DType::fp8_e4m3)})) ==
        Approx(2 / (1 / 79e12 + 1 / 158e12)));
}

TEST_CASE("profile: an MX matmul's peak is tflops_fp8, the MXFP8 one", "[profile][mx]") {
  const config::TargetConfig t = config::load_target("trn3");  // 79 bf16, 315 MXFP8
  isa::AccessPattern dst = sbuf(DType::fp32, 128, 512);
  dst.space = isa::MemSpace::psum;
  isa::Instruction mx;
  mx.op =
      isa::MatmulMx{dst, sbuf(DType::fp8_e4m3fn_x4, 128, 128), sbuf(DType::fp8_e5m2_x4, 128, 512),
                    sbuf(DType::uint8, 128, 128), sbuf(DType::uint8, 128, 512)};
  CHECK(profile::peak_flops_per_s(t, with({mx})) == 315e12);
  // With a bf16 matmul of a quarter of its flops (K 128 vs the MX 512): 5 / (1/79 + 4/315).
  CHECK(profile::peak_flops_per_s(t, with({mx, matmul(DType::bf16, DType::bf16)})) ==
        Approx(5 / (1 / 79e12 + 4 / 315e12)));
}
