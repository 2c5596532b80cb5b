// MX quantisation (NKI/quantize_mx, NeuronCore-v4+): bf16/fp16 groups of 32 values (8
// partitions x 4 elements) to packed fp8 lanes and one e8m0 scale per group. The matmul that
// reads them, matmul_mx, is in execute_tensor.cpp with the other Tensor-engine instructions.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "isa/dtype_bits.hpp"
#include "semantics/ops.hpp"

namespace neuronsim::isa::sem {

namespace {

namespace bits = dtype_bits;

// floor(log2(a)) of a finite, nonzero fp32 magnitude pattern, subnormals included.
int floor_log2(std::uint32_t a) {
  const int e = static_cast<int>(a >> 23);
  if (e != 0) return e - 127;
  return (31 - __builtin_clz(a)) - 149;  // a subnormal: man * 2^-149
}

// The e8m0 code of a group whose largest magnitude is the fp32 pattern `amax` (NKI/
// quantize_mx, "Scale calculation"): X = 2^(floor(log2 amax) - (E_max - 1)), E_max the
// largest unbiased exponent of the element type (8 for e4m3fn, 15 for e5m2), "two times
// larger" than OCP's sample rule so that the largest values round without saturating; an
// all-zero group gets 2^-127, e8m0's smallest. Clamped to e8m0's range (2^-127 .. 2^127).
// A group holding an infinity or a NaN has no such scale: the NaN code 0xFF (the page does
// not say; OCP MX v1.0 makes the scale NaN then), which makes every value of the group NaN.
std::uint8_t group_scale(std::uint32_t amax, int e_max) {
  if (amax >= bits::kFp32Inf) return bits::E8M0Format::kNan;
  if (amax == 0) return 0;
  const int code = floor_log2(amax) - (e_max - 1) + 127;
  return static_cast<std::uint8_t>(code < 0 ? 0 : (code > 254 ? 254 : code));
}

// v / 2^(code - 127), cast to the lane type by round to nearest even. Multiplying by the
// power of two is exact wherever the result is a normal fp32, and what is not lies far
// below half the smallest fp8 subnormal, so the one rounding is the cast's.
std::uint8_t quantize_lane(float v, std::uint8_t code, DType packed) {
  const float inverse = code == bits::E8M0Format::kNan
                            ? bits::bits_float(bits::kFp32Inf | bits::kFp32QuietBit)
                            : std::ldexp(1.0f, 127 - code);
  const float x = v * inverse;
  if (packed == DType::fp4_e2m1fn_x4) return fp32_to_fp4e2m1(x);
  return static_cast<std::uint8_t>(packed == DType::fp8_e4m3fn_x4
                                       ? bits::Fp8E4M3FnFormat::from_fp32(x)
                                       : bits::Fp8E5M2Format::from_fp32(x));
}

}  // namespace

void run(const Site& s, const QuantizeMx& q) {
  const Operand dst(s, q.dst, "dst"), src(s, q.src, "src"), scale(s, q.dst_scale, "dst_scale");
  const std::uint32_t partitions = src.partitions();
  const std::uint64_t packed = src.free() / MatmulMx::kLanes;
  if (partitions % kMxQuadrantPartitions != 0 || src.free() % MatmulMx::kLanes != 0)
    s.fail("src", "is not whole quadrants of 32 partitions by a multiple of 4 elements");
  if (dst.partitions() != partitions || dst.free() != packed)
    s.fail("dst", "is not [P, F/4] of src");
  const std::uint32_t rows = kMxQuadrantPartitions / kMxGroupPartitions;
  if (!(scale.partitions() == partitions ||
        (partitions == kMxQuadrantPartitions && scale.partitions() == rows)) ||
      scale.free() != packed)
    s.fail("dst_scale", "is not the quadrant layout of src's scales");
  const DType packed_type = dst.dtype();
  // The page's E_max: the largest normal's exponent, 8 for fp8_e4m3fn, 15 for fp8_e5m2 and
  // 2 for fp4_e2m1 (6 = 1.5 x 2^2; OCP Microscaling formats v1.0).
  const int e_max = packed_type == DType::fp8_e4m3fn_x4   ? 8
                    : packed_type == DType::fp4_e2m1fn_x4 ? 2
                                                          : 15;
  const unsigned width = lane_bits(packed_type);

  thread_local std::vector<float> in;
  thread_local std::vector<RawBits> out, codes;
  load_rows(src, 0, partitions, in);
  out.assign(std::size_t{partitions} * packed, RawBits{});
  codes.assign(packed, RawBits{});
  const std::size_t f = src.free();
  for (std::uint32_t p0 = 0; p0 < partitions; p0 += kMxGroupPartitions) {
    for (std::uint64_t j = 0; j < packed; ++j) {
      std::uint32_t amax = 0;  // the largest magnitude as an fp32 pattern (NaN above all)
      for (std::uint32_t r = 0; r < kMxGroupPartitions; ++r)
        for (std::uint32_t i = 0; i < MatmulMx::kLanes; ++i) {
          const std::uint32_t a =
              bits::float_bits(in[(p0 + r) * f + j * MatmulMx::kLanes + i]) & bits::kFp32AbsMask;
          amax = a > amax ? a : amax;
        }
      const std::uint8_t code = group_scale(amax, e_max);
      codes[j].bits = code;
      for (std::uint32_t r = 0; r < kMxGroupPartitions; ++r) {
        std::uint32_t word = 0;
        for (std::uint32_t i = 0; i < MatmulMx::kLanes; ++i)
          word |= std::uint32_t{quantize_lane(in[(p0 + r) * f + j * MatmulMx::kLanes + i], code,
                                              packed_type)}
                  << (width * i);
        out[(p0 + r) * packed + j].bits = word;
      }
    }
    // Row mx_scale_row(p0) of the scale tile: its quadrant's start plus the group.
    scale.store(mx_scale_row(p0), codes.data());
  }
  store_rows(dst, 0, partitions, out);
}

}  // namespace neuronsim::isa::sem
