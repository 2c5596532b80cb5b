#pragma once
// Element data types of the NeuronCore (reference section 3) and their exact conversions to
// and from fp32. Engines compute in fp32 and cast on write, so these conversions define
// the numerics of every instruction. All float conversions round to nearest even.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace neuronsim::isa {

enum class DType : std::uint8_t {
  fp32,
  tf32,  // stored in 4 bytes; fp32 with the mantissa rounded to 10 bits
  bf16,
  fp16,
  fp8_e4m3,
  fp8_e5m2,
  int8,
  int16,
  int32,
  uint8,
  uint16,
  uint32,
  // Appended for NeuronCore-v4's MX formats (codes are written into NEFF records: append
  // only). docs/dtypes.md has their sources.
  fp8_e4m3fn,     // OCP E4M3FN: no infinity, S.1111.111 is NaN, max 448
  fp8_e8m0,       // OCP E8M0 scale: 2^(bits - 127), 0xFF NaN, no sign, no zero
  fp8_e5m2_x4,    // four fp8_e5m2 lanes packed in one 32-bit element, lane 0 lowest byte
  fp8_e4m3fn_x4,  // four fp8_e4m3fn lanes packed likewise
  fp4_e2m1fn_x4,  // four OCP fp4 E2M1 lanes in one 16-bit element, lane 0 the lowest nibble
};
inline constexpr int kDTypeCount = 17;

std::size_t dtype_size(DType t);  // bytes of one element in memory
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);
bool is_float(DType t);
bool is_integer(DType t);
bool is_signed_integer(DType t);
// The 4-packed MX types (fp8 x4, fp4 x4): no single fp32 value per element, so no
// instruction converts them; they are moved byte for byte or read lane by lane
// (quantize_mx, nc_matmul_mx).
bool is_packed_x4(DType t);
// The fp8 dtype of one lane of a packed fp8 type (the type itself for any other; an fp4
// lane has no dtype of its own: lane_bits and the fp4 conversions below).
DType lane_dtype(DType t);
// Bits of one lane of a packed type (8 for fp8 x4, 4 for fp4 x4).
unsigned lane_bits(DType t);

// Bit-exact scalar conversions. from_fp32 rounds to nearest even.
float bf16_to_fp32(std::uint16_t bits);
std::uint16_t fp32_to_bf16(float v);
float fp16_to_fp32(std::uint16_t bits);
std::uint16_t fp32_to_fp16(float v);
float fp8e4m3_to_fp32(std::uint8_t bits);
std::uint8_t fp32_to_fp8e4m3(float v);
float fp8e5m2_to_fp32(std::uint8_t bits);
std::uint8_t fp32_to_fp8e5m2(float v);
float fp8e4m3fn_to_fp32(std::uint8_t bits);
std::uint8_t fp32_to_fp8e4m3fn(float v);
float e8m0_to_fp32(std::uint8_t bits);
std::uint8_t fp32_to_e8m0(float v);
float fp32_to_tf32(float v);  // rounds the mantissa to 10 bits, result still an fp32
// OCP fp4 E2M1 (an fp4_e2m1fn_x4 lane, 4 bits): +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}, no infinity
// or NaN. From fp32: nearest even, saturating at +-6; NaN -> +6 (docs/dtypes.md).
float fp4e2m1_to_fp32(std::uint8_t bits);
std::uint8_t fp32_to_fp4e2m1(float v);

// Memory element <-> fp32. `p` points at one element stored little-endian.
// Integer destinations: round to nearest even, saturate to the type's range, NaN -> 0.
// A packed x4 type has no fp32 value: these throw for one (validation refuses them first).
float load_fp32(DType t, const void* p);
void store_fp32(DType t, float v, void* p);
// Memory element <-> integer, for bitwise ops and iota on integer types (exact).
std::int64_t load_int(DType t, const void* p);
void store_int(DType t, std::int64_t v, void* p);  // saturates to the type's range

}  // namespace neuronsim::isa
